import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnswerScheduler } from './answer-scheduler.ts';
import { createAnswerScheduler } from './answer-scheduler.ts';

describe('createAnswerScheduler', () => {
  let scheduler: AnswerScheduler | undefined;
  afterEach(() => scheduler?.stop());

  /** A connection with `count` requests ready; its answers go to `log`. */
  function connection(name: string, count: number, log: string[]): () => boolean {
    let left = count;
    return () => {
      log.push(name);
      left -= 1;
      return left > 0;
    };
  }

  it('answers the queued connections in turn, one request each, so one that pipelines cannot starve another', async () => {
    scheduler = createAnswerScheduler({ answersPerTurn: 100, answersPerSecond: 10_000 });
    const log: string[] = [];
    scheduler.enqueue(connection('pipeliner', 5, log), false);
    scheduler.enqueue(connection('probe', 1, log), false);
    await nextTurn();
    expect(log).toEqual(['pipeliner', 'probe', 'pipeliner', 'pipeliner', 'pipeliner', 'pipeliner']);
  });

  it('answers the first request of a connection before any later request of another', async () => {
    scheduler = createAnswerScheduler({ answersPerTurn: 100, answersPerSecond: 10_000 });
    const log: string[] = [];
    scheduler.enqueue(connection('kept-open-1', 2, log), false);
    scheduler.enqueue(connection('kept-open-2', 2, log), false);
    scheduler.enqueue(connection('probe', 1, log), true);
    await nextTurn();
    expect(log).toEqual(['probe', 'kept-open-1', 'kept-open-2', 'kept-open-1', 'kept-open-2']);
  });

  it('lets each address take its turn: a flood of fresh connections from one cannot hold back a probe from another', async () => {
    scheduler = createAnswerScheduler({ answersPerTurn: 4, answersPerSecond: 10_000 });
    const log: string[] = [];
    for (let index = 0; index < 100; index += 1) scheduler.enqueue(connection('flood', 1, log), true, '127.0.0.1');
    scheduler.enqueue(connection('kubelet', 1, log), true, '10.0.0.1');
    await nextTurn();
    expect(log).toEqual(['flood', 'kubelet', 'flood', 'flood']);
  });

  it('gives at most answersPerTurn answers in one turn of the event loop', async () => {
    scheduler = createAnswerScheduler({ answersPerTurn: 3, answersPerSecond: 10_000 });
    const log: string[] = [];
    scheduler.enqueue(connection('a', 10, log), false);
    scheduler.enqueue(connection('b', 10, log), false);
    await nextTurn();
    expect(log).toEqual(['a', 'b', 'a']);
    await nextTurn();
    expect(log).toHaveLength(6);
  });

  it('gives at most answersPerSecond, after a burst of a tenth of that', async () => {
    const answersPerSecond = 200;
    scheduler = createAnswerScheduler({ answersPerTurn: 1_000, answersPerSecond });
    const log: string[] = [];
    const started = performance.now();
    scheduler.enqueue(connection('a', 1_000, log), false);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const elapsedSeconds = (performance.now() - started) / 1000;
    expect(log.length).toBeGreaterThan(0);
    expect(log.length).toBeLessThanOrEqual(Math.ceil(answersPerSecond / 10 + elapsedSeconds * answersPerSecond) + 1);
  });

  it('forgets a connection taken out of the queue, and everything once stopped', async () => {
    scheduler = createAnswerScheduler({ answersPerTurn: 100, answersPerSecond: 10_000 });
    const log: string[] = [];
    const gone = connection('gone', 3, log);
    scheduler.enqueue(gone, true);
    scheduler.enqueue(connection('kept', 1, log), false);
    scheduler.remove(gone);
    await nextTurn();
    expect(log).toEqual(['kept']);
    scheduler.enqueue(connection('late', 1, log), true);
    scheduler.stop();
    await nextTurn();
    expect(log).toEqual(['kept']);
  });
});

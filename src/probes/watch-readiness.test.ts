import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readPid } from '../../test/support/pid-file.ts';
import { useProcessSandbox } from '../../test/support/process-sandbox.ts';
import { libuvChildren } from '../process/spawn.ts';
import { isAlive } from '../os/proc-table.ts';
import { createExecProbe } from './exec-probe.ts';
import type { ProbeOutcome } from './probe.ts';
import { countResources, createToggleServer, delay, expectNoResourcesBeyond, recording } from '../../test/support/probes.ts';
import { INITIAL_READINESS, nextReadiness } from './readiness-state.ts';
import type { ReadinessDetail } from './watch-readiness.ts';
import { watchReadiness } from './watch-readiness.ts';
import { createTcpProbe } from './tcp-probe.ts';

/**
 * Node timers may fire late under load, so upper bounds are liveness bounds,
 * far above the figures (bench/readiness-wake.ts measures those) and still far
 * below the periods a test tells apart.
 */
const LATE_MS = 2_000;
const pass: ProbeOutcome = { ok: true };
const fail = (reason = 'not yet'): ProbeOutcome => ({ ok: false, reason });

/** A probe answering from a script (last entry repeats), with a wake the test can pull. */
function scripted(answers: readonly ProbeOutcome[], latencyMs = 0) {
  let wake: (() => void) | undefined;
  const probe = recording({
    async check(_timeoutMs, signal) {
      if (latencyMs > 0) await delay(latencyMs);
      if (signal.aborted) return fail('aborted');
      return answers[Math.min(probe.attempts.length - 1, answers.length - 1)]!;
    },
    subscribe(handler) {
      wake = handler;
    },
  });
  return { probe, wake: () => wake?.() };
}

interface Change {
  readonly ready: boolean;
  readonly detail: ReadinessDetail;
}

describe('nextReadiness', () => {
  it('reports the first pass, a later failure and a recovery, and nothing in between', () => {
    const outcomes = [fail('a'), fail('b'), pass, pass, fail('c'), fail('d'), pass];
    const changes: unknown[] = [];
    let state = INITIAL_READINESS;
    for (const outcome of outcomes) {
      const next = nextReadiness(state, outcome);
      state = next.state;
      if (next.change !== undefined) changes.push(next.change);
    }
    expect(changes).toEqual([
      { ready: true, attempts: 3, lastFailure: 'b' },
      { ready: false, attempts: 2, lastFailure: 'c' },
      { ready: true, attempts: 2, lastFailure: 'd' },
    ]);
    expect(state.started).toBe(true);
  });

  it('reports nothing while the first attempts fail: not ready is where it starts', () => {
    const { change, state } = nextReadiness(INITIAL_READINESS, fail());
    expect(change).toBeUndefined();
    expect(state).toMatchObject({ ready: false, started: false, attempts: 1, lastFailure: 'not yet' });
  });
});

describe('watchReadiness scheduling', () => {
  it('starts at once, repeats every period until the first pass, then at periodAfterStart', async () => {
    const { probe } = scripted([fail(), fail(), pass]);
    const controller = new AbortController();
    const changes: Change[] = [];
    // The slow period is far above LATE_MS, so a gap tells which period was used however late a timer fires.
    const slowMs = 3_000;
    watchReadiness(
      probe,
      { periodMs: 30, timeoutMs: 1_000, periodAfterStartMs: slowMs },
      (ready, detail) => changes.push({ ready, detail }),
      controller.signal,
    );
    expect(probe.attempts).toHaveLength(1); // at once: synchronously
    await expect.poll(() => probe.attempts.length, { timeout: slowMs + 10_000 }).toBe(4);
    controller.abort();

    const gaps = probe.attempts.slice(1).map((attempt, index) => attempt.startedAt - probe.attempts[index]!.startedAt);
    expect(gaps[0]).toBeGreaterThanOrEqual(30 - 0.1);
    expect(gaps[0]).toBeLessThan(30 + LATE_MS);
    expect(gaps[1]).toBeGreaterThanOrEqual(30 - 0.1);
    expect(gaps[1]).toBeLessThan(30 + LATE_MS);
    // After the pass (attempt 3) the period is the slower one.
    expect(gaps[2]).toBeGreaterThanOrEqual(slowMs - 0.1);
    expect(changes).toEqual([{ ready: true, detail: { attempts: 3, lastFailure: 'not yet' } }]);
  });

  it('attempts at once on a wake instead of waiting out the period', async () => {
    const { probe, wake } = scripted([fail(), pass]);
    const controller = new AbortController();
    const changes: boolean[] = [];
    watchReadiness(
      probe,
      { periodMs: 10_000, timeoutMs: 1_000, periodAfterStartMs: 10_000 },
      (ready) => changes.push(ready),
      controller.signal,
    );
    // The first attempt (a failure) is over; the next is 10s away unless woken.
    await expect.poll(() => probe.attempts[0]?.endedAt).toBeDefined();
    const wokenAt = performance.now();
    wake();
    await expect.poll(() => changes).toEqual([true]);
    // Far sooner than the 10s period: the wake, not the timer, started it.
    expect(probe.attempts[1]!.startedAt - wokenAt).toBeLessThan(LATE_MS);
    controller.abort();
  });

  it('never overlaps attempts: a wake during one starts the next right after it', async () => {
    const { probe, wake } = scripted([fail()], 60);
    const controller = new AbortController();
    watchReadiness(probe, { periodMs: 10_000, timeoutMs: 1_000, periodAfterStartMs: 10_000 }, () => undefined, controller.signal);
    await expect.poll(() => probe.attempts.length).toBe(1); // in flight for 60ms
    wake();
    wake();
    await expect.poll(() => probe.attempts.length).toBe(2);
    // Proving that no third attempt comes needs a wait: longer than one attempt (60ms).
    await delay(100);
    controller.abort();
    expect(probe.attempts).toHaveLength(2); // two wakes in flight make one more attempt, not two
    expect(probe.attempts[1]!.startedAt).toBeGreaterThanOrEqual(probe.attempts[0]!.endedAt!);
    expect(probe.attempts[1]!.startedAt - probe.attempts[0]!.endedAt!).toBeLessThan(LATE_MS);
  });

  it('follows a slow attempt at once when it overran the period', async () => {
    const { probe } = scripted([fail()], 50);
    const controller = new AbortController();
    watchReadiness(probe, { periodMs: 10, timeoutMs: 1_000, periodAfterStartMs: 10 }, () => undefined, controller.signal);
    await expect.poll(() => probe.attempts.length).toBeGreaterThanOrEqual(3);
    controller.abort();
    for (let index = 1; index < probe.attempts.length; index += 1) {
      expect(probe.attempts[index]!.startedAt).toBeGreaterThanOrEqual(probe.attempts[index - 1]!.endedAt!);
    }
  });

  it('bounds each attempt by timeoutMs', async () => {
    const timeouts: number[] = [];
    const controller = new AbortController();
    watchReadiness(
      {
        description: 'x',
        check: async (timeoutMs) => {
          timeouts.push(timeoutMs);
          return fail();
        },
      },
      { periodMs: 10, timeoutMs: 123, periodAfterStartMs: 10 },
      () => undefined,
      controller.signal,
    );
    await expect.poll(() => timeouts.length).toBeGreaterThanOrEqual(2);
    controller.abort();
    expect(new Set(timeouts)).toEqual(new Set([123]));
  });

  it('makes no attempt when the signal is already aborted', () => {
    const { probe } = scripted([pass]);
    watchReadiness(probe, { periodMs: 10, timeoutMs: 100, periodAfterStartMs: 10 }, () => undefined, AbortSignal.abort());
    expect(probe.attempts).toHaveLength(0);
  });

  it('arms nothing more when onChange itself aborts the watch', async () => {
    const { probe } = scripted([pass]);
    const before = countResources();
    const controller = new AbortController();
    watchReadiness(probe, { periodMs: 10, timeoutMs: 1_000, periodAfterStartMs: 60_000 }, () => controller.abort(), controller.signal);
    await expect.poll(() => controller.signal.aborted).toBe(true);
    await expectNoResourcesBeyond(before);
    expect(probe.attempts).toHaveLength(1);
  });

  it('counts a probe that throws, against its contract, as a failed attempt', async () => {
    const controller = new AbortController();
    const changes: Change[] = [];
    let calls = 0;
    const probe = {
      description: 'broken',
      check: (): Promise<ProbeOutcome> => {
        calls += 1;
        if (calls === 1) throw new Error('sync bug');
        if (calls === 2) return Promise.reject(new Error('async bug'));
        return Promise.resolve(pass);
      },
    };
    watchReadiness(
      probe,
      { periodMs: 10, timeoutMs: 1_000, periodAfterStartMs: 60_000 },
      (ready, detail) => changes.push({ ready, detail }),
      controller.signal,
    );
    await expect.poll(() => changes).toEqual([{ ready: true, detail: { attempts: 3, lastFailure: 'broken: async bug' } }]);
    controller.abort();
  });

  it('reports nothing after an abort, even for a pass in flight', async () => {
    const { probe } = scripted([pass], 30);
    const controller = new AbortController();
    const changes: boolean[] = [];
    watchReadiness(probe, { periodMs: 10, timeoutMs: 1_000, periodAfterStartMs: 10 }, (ready) => changes.push(ready), controller.signal);
    controller.abort();
    await delay(60);
    expect(changes).toEqual([]);
    expect(probe.attempts).toHaveLength(1);
  });
});

describe('watchReadiness with real probes', () => {
  const sandbox = useProcessSandbox('watch-readiness-test-', { expectNoOwnedPids: true });

  it('follows a TCP server that starts, stops and starts again: true, false, true', async () => {
    const server = await createToggleServer();
    await server.close();
    const before = countResources();
    const controller = new AbortController();
    const changes: Change[] = [];
    watchReadiness(
      createTcpProbe('127.0.0.1', server.port),
      { periodMs: 20, timeoutMs: 1_000, periodAfterStartMs: 40 },
      (ready, detail) => changes.push({ ready, detail }),
      controller.signal,
    );
    await delay(100);
    expect(changes).toEqual([]);

    await server.open();
    await expect.poll(() => changes.map((change) => change.ready)).toEqual([true]);
    expect(changes[0]!.detail.attempts).toBeGreaterThan(1);
    expect(changes[0]!.detail.lastFailure).toBe(`tcp://127.0.0.1:${server.port}: ECONNREFUSED`);

    await server.close();
    await expect.poll(() => changes.map((change) => change.ready)).toEqual([true, false]);
    // Refused, or reset when an attempt had connected just before the close dropped
    // its connection: which one is up to the timing, and both say the server went away.
    expect(changes[1]!.detail.lastFailure).toMatch(new RegExp(`^tcp://127\\.0\\.0\\.1:${server.port}: (ECONNREFUSED|ECONNRESET)$`));

    await server.open();
    await expect.poll(() => changes.map((change) => change.ready)).toEqual([true, false, true]);

    controller.abort();
    await server.close();
    await expectNoResourcesBeyond(before);
  });

  it('on abort, kills the exec attempt in flight and leaves no timer, socket or process behind', async () => {
    const pidFile = join(sandbox.workDir, 'pid');
    const probe = createExecProbe(['sh', '-c', `echo $$ > ${pidFile}; exec sleep 300`], {
      env: {},
      cwd: undefined,
    });
    const before = countResources();
    const controller = new AbortController();
    watchReadiness(probe, { periodMs: 100, timeoutMs: 30_000, periodAfterStartMs: 1_000 }, () => undefined, controller.signal);
    await expect.poll(() => readPid(pidFile)).toBeGreaterThan(0);
    const pid = readPid(pidFile);
    sandbox.track(pid);

    controller.abort();
    await expect.poll(() => isAlive(pid)).toBe(false);
    await expect.poll(() => [...libuvChildren]).toEqual([]);
    await expectNoResourcesBeyond(before);
  });
});

describe('watchReadiness leaves nothing behind', () => {
  // The strictest check: a fresh Node process that watches and then aborts has
  // nothing left to do and must exit by itself; a leaked timer (periods here are
  // 60s), watch, socket or child would hold it past the bound.
  const EXIT_BOUND_MS = 15_000;
  const execFileAsync = promisify(execFile);
  const module = (file: string) => JSON.stringify(new URL(file, import.meta.url).pathname);

  it.each([
    ['an exec attempt in flight', `createExecProbe(['sleep', '300'], { env: {}, cwd: undefined })`, []],
    ['a tcp probe between attempts', `createTcpProbe('127.0.0.1', 1)`, []],
    ['a tcp probe that passed', `createTcpProbe('127.0.0.1', port)`, [true]],
    ['a file probe watching its directory', `createFileProbe('/tmp/' + process.pid + '-never')`, []],
    ['a file probe polling for a missing directory', `createFileProbe('/nonexistent-' + process.pid + '/ready')`, []],
  ])('after %s is aborted', async (_case, probe, expected) => {
    const script = `
      import { createServer } from 'node:net';
      import { createExecProbe } from ${module('./exec-probe.ts')};
      import { createFileProbe } from ${module('./file-probe.ts')};
      import { createTcpProbe } from ${module('./tcp-probe.ts')};
      import { watchReadiness } from ${module('./watch-readiness.ts')};
      const server = createServer((socket) => socket.destroy()).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const port = server.address().port;
      const controller = new AbortController();
      const changes = [];
      const expected = ${JSON.stringify(expected)};
      const finish = () => {
        if (controller.signal.aborted) return;
        controller.abort();
        server.close();
        console.log(JSON.stringify(changes));
      };
      watchReadiness(${probe}, { periodMs: 60000, timeoutMs: 60000, periodAfterStartMs: 60000 }, (ready) => {
        changes.push(ready);
        // A change the case waits for ends it at once, however long the attempt took.
        if (changes.length === expected.length) finish();
      }, controller.signal);
      // With no change to wait for: abort mid-attempt or between attempts.
      if (expected.length === 0) setTimeout(finish, 300);
    `;
    const startedAt = performance.now();
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], {
      timeout: EXIT_BOUND_MS,
      killSignal: 'SIGKILL',
    });
    expect(JSON.parse(stdout)).toEqual(expected);
    expect(performance.now() - startedAt).toBeLessThan(EXIT_BOUND_MS);
  });
});

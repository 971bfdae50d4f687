import { describe, expect, it } from 'vitest';
import { countLiveness, INITIAL_LIVENESS_COUNT, isLivenessFailed } from './liveness-count.ts';
import type { LivenessCount } from './liveness-count.ts';
import type { ProbeOutcome } from './probe.ts';
import { countResources, createToggleServer, delay, expectNoResourcesBeyond, recording } from '../../test/support/probes.ts';
import { createTcpProbe } from './tcp-probe.ts';
import type { LivenessFailure } from './watch-liveness.ts';
import { watchLiveness } from './watch-liveness.ts';

/** Node timers may fire late under load: upper bounds are liveness bounds, not figures. */
const LATE_MS = 2_000;
const pass: ProbeOutcome = { ok: true };
const fail = (reason: string): ProbeOutcome => ({ ok: false, reason });

function countAll(outcomes: readonly ProbeOutcome[]): LivenessCount {
  return outcomes.reduce(countLiveness, INITIAL_LIVENESS_COUNT);
}

describe('countLiveness', () => {
  it('counts consecutive failures, keeping the latest reason', () => {
    expect(countAll([fail('a'), fail('b')])).toEqual({ failures: 2, lastFailure: 'b' });
  });

  it('starts over on a pass', () => {
    expect(countAll([fail('a'), fail('b'), pass])).toEqual(INITIAL_LIVENESS_COUNT);
    expect(countAll([fail('a'), fail('b'), pass, fail('c')])).toEqual({ failures: 1, lastFailure: 'c' });
  });

  it('is failed at the threshold, not before', () => {
    expect(isLivenessFailed(countAll([fail('a'), fail('b')]), 3)).toBe(false);
    expect(isLivenessFailed(countAll([fail('a'), fail('b'), fail('c')]), 3)).toBe(true);
    expect(isLivenessFailed(countAll([fail('a'), fail('b'), pass, fail('c'), fail('d')]), 3)).toBe(false);
    expect(isLivenessFailed(countAll([fail('a')]), 1)).toBe(true);
  });
});

describe('watchLiveness', () => {
  it('waits initialDelay, then probes every period, and reports failureThreshold consecutive failures once', async () => {
    const server = await createToggleServer();
    await server.close();
    const before = countResources();
    const probe = recording(createTcpProbe('127.0.0.1', server.port));
    const failed: { detail: LivenessFailure; attempts: number }[] = [];
    const calledAt = performance.now();
    watchLiveness(
      probe,
      { periodMs: 30, timeoutMs: 1_000, failureThreshold: 3, initialDelayMs: 100 },
      (detail) => failed.push({ detail, attempts: probe.attempts.length }),
      new AbortController().signal,
    );

    expect(probe.attempts).toHaveLength(0);
    await expect.poll(() => failed.length).toBe(1);
    expect(probe.attempts[0]!.startedAt - calledAt).toBeGreaterThanOrEqual(100 - 0.1);
    expect(probe.attempts[0]!.startedAt - calledAt).toBeLessThan(100 + LATE_MS);
    expect(failed[0]).toEqual({ detail: { failures: 3, lastFailure: `tcp://127.0.0.1:${server.port}: ECONNREFUSED` }, attempts: 3 });
    expect(probe.attempts[2]!.startedAt - probe.attempts[0]!.startedAt).toBeGreaterThanOrEqual(2 * 30 - 0.1);

    // It stopped by itself: no more attempts, nothing held, without an abort.
    await delay(100);
    expect(probe.attempts).toHaveLength(3);
    expect(failed).toHaveLength(1);
    await expectNoResourcesBeyond(before);
  });

  it('is not failed by failures that a pass interrupts', async () => {
    const server = await createToggleServer();
    await server.close();
    const tcp = createTcpProbe('127.0.0.1', server.port);
    // The server is up for the third attempt only. The probe itself opens and
    // closes it before the attempt, so no race between the test and the period decides.
    let started = 0;
    const probe = recording({
      async check(timeoutMs, signal) {
        started += 1;
        if (started === 3) await server.open();
        if (started === 4) await server.close();
        return tcp.check(timeoutMs, signal);
      },
    });
    const failed: LivenessFailure[] = [];
    const controller = new AbortController();
    watchLiveness(
      probe,
      { periodMs: 10, timeoutMs: 1_000, failureThreshold: 3, initialDelayMs: 0 },
      (detail) => failed.push(detail),
      controller.signal,
    );

    await expect.poll(() => failed.length).toBe(1);
    controller.abort();
    // Three failures after the pass, not one: the two before it were forgotten.
    expect(probe.attempts.map((attempt) => attempt.outcome?.ok)).toEqual([false, false, true, false, false, false]);
    expect(failed[0]).toEqual({ failures: 3, lastFailure: `tcp://127.0.0.1:${server.port}: ECONNREFUSED` });
  });

  it('never fails while the server answers', async () => {
    const server = await createToggleServer();
    const probe = recording(createTcpProbe('127.0.0.1', server.port));
    const failed: LivenessFailure[] = [];
    const controller = new AbortController();
    watchLiveness(
      probe,
      { periodMs: 10, timeoutMs: 1_000, failureThreshold: 1, initialDelayMs: 0 },
      (detail) => failed.push(detail),
      controller.signal,
    );
    await expect.poll(() => probe.attempts.length).toBeGreaterThanOrEqual(5);
    controller.abort();
    await server.close();
    expect(failed).toEqual([]);
  });

  it('counts an attempt that times out as a failure', async () => {
    const failed: LivenessFailure[] = [];
    const hanging = {
      description: 'hangs',
      check: (timeoutMs: number) => delay(timeoutMs).then(() => fail(`timed out after ${timeoutMs}ms`)),
    };
    watchLiveness(
      hanging,
      { periodMs: 10, timeoutMs: 20, failureThreshold: 2, initialDelayMs: 0 },
      (detail) => failed.push(detail),
      new AbortController().signal,
    );
    await expect.poll(() => failed).toEqual([{ failures: 2, lastFailure: 'timed out after 20ms' }]);
  });

  it('ignores wakes: only the period paces liveness', async () => {
    let wake = (): void => undefined;
    const probe = recording({ check: async () => fail('down'), subscribe: (handler) => (wake = handler) });
    const failed: LivenessFailure[] = [];
    const controller = new AbortController();
    watchLiveness(
      probe,
      { periodMs: 10_000, timeoutMs: 100, failureThreshold: 3, initialDelayMs: 0 },
      (detail) => failed.push(detail),
      controller.signal,
    );
    await delay(20);
    wake();
    wake();
    await delay(20);
    expect(probe.attempts).toHaveLength(1);
    expect(failed).toEqual([]);
    controller.abort();
  });

  it('on abort during the initial delay, makes no attempt and holds nothing', async () => {
    const before = countResources();
    const probe = recording(createTcpProbe('127.0.0.1', 1));
    const controller = new AbortController();
    watchLiveness(probe, { periodMs: 10, timeoutMs: 100, failureThreshold: 1, initialDelayMs: 60_000 }, () => undefined, controller.signal);
    controller.abort();
    await expectNoResourcesBeyond(before);
    expect(probe.attempts).toHaveLength(0);
  });

  it('rejects a threshold below 1', () => {
    expect(() =>
      watchLiveness(
        createTcpProbe('127.0.0.1', 1),
        { periodMs: 10, timeoutMs: 100, failureThreshold: 0, initialDelayMs: 0 },
        () => undefined,
        new AbortController().signal,
      ),
    ).toThrow(/failureThreshold must be an integer of at least 1, got 0/);
  });
});

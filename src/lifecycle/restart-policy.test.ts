import { describe, expect, it } from 'vitest';
import type { ExitStatus } from '../plan/exit-status.ts';
import type { RestartSpec } from '../plan/plan.ts';
import { testProcess as proc } from '../../test/support/test-plan.ts';
import { backoffDelayMs, isExhausted, LEFTOVER_GRACE_MS, leftoverGraceMs, restartsAfterRun, wantsRestart } from './restart-policy.ts';

const spec = (overrides: Partial<RestartSpec> = {}): RestartSpec => ({
  policy: 'always',
  initialBackoffMs: 1_000,
  maxBackoffMs: 10_000,
  resetAfterMs: 60_000,
  maxRestarts: undefined,
  ...overrides,
});
const exited = (code: number): ExitStatus => ({ kind: 'exited', code });
const signaled: ExitStatus = { kind: 'signaled', signal: 'SIGKILL' };
const notFound: ExitStatus = { kind: 'spawn-failed', code: 127, reason: 'no such program' };

describe('wantsRestart', () => {
  it('always: after any exit; never: after none', () => {
    for (const status of [exited(0), exited(1), signaled]) {
      expect(wantsRestart(spec({ policy: 'always' }), status, false)).toBe(true);
      expect(wantsRestart(spec({ policy: 'never' }), status, false)).toBe(false);
      expect(wantsRestart(spec({ policy: 'never' }), status, true)).toBe(false);
    }
  });

  it('on-failure: after a non-zero exit, a signal, or a stop for being unhealthy, not after a clean exit', () => {
    const onFailure = spec({ policy: 'on-failure' });
    expect(wantsRestart(onFailure, exited(1), false)).toBe(true);
    expect(wantsRestart(onFailure, signaled, false)).toBe(true);
    expect(wantsRestart(onFailure, exited(0), true)).toBe(true);
    expect(wantsRestart(onFailure, exited(0), false)).toBe(false);
  });

  it('never after a spawn that failed: the program does not appear by retrying', () => {
    expect(wantsRestart(spec({ policy: 'always' }), notFound, false)).toBe(false);
    expect(wantsRestart(spec({ policy: 'on-failure' }), notFound, true)).toBe(false);
  });
});

describe('backoff', () => {
  it('restarts at once the first time, then after the initial delay, doubling up to the maximum', () => {
    const delays = [0, 1, 2, 3, 4, 5, 6].map((restarts) => backoffDelayMs(spec(), restarts));
    expect(delays).toEqual([0, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it('starts over after a run that lasted resetAfterMs, and not after a shorter one', () => {
    expect(restartsAfterRun(spec(), 5, 60_000)).toBe(0);
    expect(restartsAfterRun(spec(), 5, 59_999)).toBe(5);
  });

  it('is exhausted once maxRestarts restarts were made, and never without a maximum', () => {
    expect(isExhausted(spec({ maxRestarts: 3 }), 2)).toBe(false);
    expect(isExhausted(spec({ maxRestarts: 3 }), 3)).toBe(true);
    expect(isExhausted(spec({ maxRestarts: 0 }), 0)).toBe(true);
    expect(isExhausted(spec(), 1_000_000)).toBe(false);
  });

  it('gives what a run left behind the process’s own grace, or 2 s', () => {
    expect(LEFTOVER_GRACE_MS).toBe(2_000);
    expect(leftoverGraceMs({ ...proc('a', 'sidecar'), after: [] })).toBe(2_000);
    expect(leftoverGraceMs({ ...proc('a', 'sidecar'), after: [], graceMs: 500 })).toBe(500);
  });
});

import { describe, expect, test } from 'vitest';
import { graceLeftMs, graceUsedMs } from './grace-budget.ts';

describe('the grace budget', () => {
  test('before teardown nothing of it is used and all of it is left', () => {
    const state = { teardownStartedAt: undefined };
    expect(graceUsedMs(state, 5_000)).toBeUndefined();
    expect(graceLeftMs(25_000, state, 5_000)).toBe(25_000);
  });

  test('from teardown on it is spent with time, and never goes below nothing', () => {
    const state = { teardownStartedAt: 1_000 };
    expect(graceUsedMs(state, 4_500)).toBe(3_500);
    expect(graceLeftMs(25_000, state, 4_500)).toBe(21_500);
    expect(graceLeftMs(25_000, state, 60_000)).toBe(0);
  });
});

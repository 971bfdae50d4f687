import type { LifecycleState } from './state.ts';

// The one grace budget, told in one place: teardown starts it (teardown.ts
// stamps teardownStartedAt), the reducer hands an external what is left of it
// in its turn, and the runner asks the same question with the clock's time for
// the final sweep and the log (it reports the time, this decides the sum).

type Started = Pick<LifecycleState, 'teardownStartedAt'>;

/** How much of the budget teardown had used at `at`; undefined before teardown began. */
export function graceUsedMs(state: Started, at: number): number | undefined {
  return state.teardownStartedAt === undefined ? undefined : at - state.teardownStartedAt;
}

/** What is left of the budget at `at`: all of it before teardown began, never less than nothing. */
export function graceLeftMs(graceMs: number, state: Started, at: number): number {
  return Math.max(0, graceMs - (graceUsedMs(state, at) ?? 0));
}

import type { DrainSpec } from '../plan/plan.ts';
import type { AttemptOutcome } from '../attempt/run-attempt.ts';
import { ABORTED_REASON, failure, MAX_TIMER_MS } from '../attempt/run-attempt.ts';
import { assertNever } from '../plan/assert-never.ts';
import type { HookContext, HookOutcome } from './hook.ts';
import { runHook, withElapsed } from './run-hook.ts';
import { monotonicMs } from '../support/monotonic-clock.ts';

// The pod-level drain: runs first on termination, before any stop signal, so
// load balancers stop sending traffic while everything still serves. A delay is
// what people do today with `sleep` in a preStop, minus the sleep process.

/** A delay ends ok after drain.ms; an abort (a second SIGTERM) ends it at once with reason "aborted". Never rejects. */
export async function runDrain(drain: DrainSpec, context: HookContext, signal: AbortSignal): Promise<HookOutcome> {
  switch (drain.kind) {
    case 'delay': {
      const startedAt = monotonicMs();
      return withElapsed(await waitForDelay(drain.ms, signal), startedAt);
    }
    case 'hook':
      return runHook(drain.hook, context, signal);
    default:
      return assertNever(drain);
  }
}

export function waitForDelay(ms: number, signal: AbortSignal): Promise<AttemptOutcome> {
  if (signal.aborted) return Promise.resolve(failure(ABORTED_REASON));
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(failure(ABORTED_REASON));
    };
    // Clamped: Node turns a longer delay into 1 ms. The grace budget is far shorter anyway.
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve({ ok: true });
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

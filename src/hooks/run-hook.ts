import type { HookSpec } from '../plan/plan.ts';
import type { AttemptOutcome } from '../attempt/run-attempt.ts';
import { assertNever } from '../plan/assert-never.ts';
import type { HookContext, HookOutcome } from './hook.ts';
import { runExecHook } from './run-exec-hook.ts';
import { runHttpHook } from './run-http-hook.ts';
import { monotonicMs } from '../support/monotonic-clock.ts';

/**
 * Runs one hook to its end, bounded by hook.timeoutMs and by `signal`. Never
 * rejects: on timeout or abort the hook's attempt is ended (its process group
 * killed and reaped, or its socket destroyed) before the outcome resolves, with
 * reason "timed out after Nms" or "aborted".
 */
export async function runHook(hook: HookSpec, context: HookContext, signal: AbortSignal): Promise<HookOutcome> {
  const startedAt = monotonicMs();
  const outcome = await attempt(hook, context, signal);
  return withElapsed(outcome, startedAt);
}

function attempt(hook: HookSpec, context: HookContext, signal: AbortSignal): Promise<AttemptOutcome> {
  switch (hook.kind) {
    case 'exec':
      return runExecHook(hook, context, signal);
    case 'http':
      return runHttpHook(hook, context, signal);
    default:
      return assertNever(hook);
  }
}

export function withElapsed(outcome: AttemptOutcome, startedAt: number): HookOutcome {
  const elapsedMs = Math.round(monotonicMs() - startedAt);
  return outcome.ok ? { ok: true, elapsedMs } : { ok: false, reason: outcome.reason, elapsedMs };
}

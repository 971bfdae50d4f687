import type { ProcessSpec, RestartSpec } from '../plan/plan.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import { isSuccess } from '../plan/exit-status.ts';

// Pure restart decisions: whether a process that exited runs again, and when.

/** always: any exit; on-failure: a non-zero exit, a signal, or a stop for being unhealthy; never: no. */
export function wantsRestart(spec: RestartSpec, status: ExitStatus, killedAsUnhealthy: boolean): boolean {
  if (status.kind === 'spawn-failed') return false; // a missing program does not appear by retrying
  switch (spec.policy) {
    case 'always':
      return true;
    case 'on-failure':
      return killedAsUnhealthy || !isSuccess(status);
    case 'never':
      return false;
  }
}

/**
 * Restarts so far, counting from the last reset: a run that lasted resetAfterMs
 * proves the process healthy again, so its next crash starts the backoff over.
 */
export function restartsAfterRun(spec: RestartSpec, restarts: number, ranMs: number): number {
  return ranMs >= spec.resetAfterMs ? 0 : restarts;
}

/** maxRestarts reached: the process counts as failed instead of running again. */
export function isExhausted(spec: RestartSpec, restarts: number): boolean {
  return spec.maxRestarts !== undefined && restarts >= spec.maxRestarts;
}

/** First restart at once (a crash may be a fluke), then initial, doubling, capped at max. */
export function backoffDelayMs(spec: RestartSpec, restarts: number): number {
  if (restarts === 0) return 0;
  return Math.min(spec.maxBackoffMs, spec.initialBackoffMs * 2 ** (restarts - 1));
}

/** How long what a run left behind gets after SIGTERM before SIGKILL, unless the process has its own grace. */
export const LEFTOVER_GRACE_MS = 2_000;

/** The grace of the sweep of a process's last run's group, before it runs again. */
export function leftoverGraceMs(spec: ProcessSpec): number {
  return spec.graceMs ?? LEFTOVER_GRACE_MS;
}

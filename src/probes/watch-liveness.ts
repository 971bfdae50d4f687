import type { Probe } from './probe.ts';
import { runProbeLoop } from './probe-loop.ts';
import { countLiveness, INITIAL_LIVENESS_COUNT, isLivenessFailed } from './liveness-count.ts';

// Watches a started process for failureThreshold consecutive failures, then
// says so once and stops: what follows (stop signal, grace, restart under its
// policy) is the lifecycle's. Wakes are ignored on purpose: a burst of them
// (one file change can raise several events) would count several failures in
// milliseconds, where Kubernetes promises failureThreshold × period of grace.

export interface LivenessTiming {
  readonly periodMs: number;
  /** Bound on one attempt; an attempt that times out is a failure. */
  readonly timeoutMs: number;
  /** Consecutive failures that condemn the process; at least 1. */
  readonly failureThreshold: number;
  /** Pause before the first attempt, counted from this call. */
  readonly initialDelayMs: number;
}

export interface LivenessFailure {
  readonly failures: number;
  readonly lastFailure: string;
}

export type HandleLivenessFailed = (detail: LivenessFailure) => void;

export function watchLiveness(probe: Probe, timing: LivenessTiming, onFailed: HandleLivenessFailed, signal: AbortSignal): void {
  // Config validation rejects these; a loop that fails on its first answer, or never, would be a silent bug.
  if (!Number.isInteger(timing.failureThreshold) || timing.failureThreshold < 1) {
    throw new RangeError(`watchLiveness: failureThreshold must be an integer of at least 1, got ${timing.failureThreshold}`);
  }
  let count = INITIAL_LIVENESS_COUNT;
  runProbeLoop(
    probe,
    { timeoutMs: timing.timeoutMs, firstAttemptAfterMs: timing.initialDelayMs, wakes: false },
    (outcome) => {
      count = countLiveness(count, outcome);
      if (!isLivenessFailed(count, timing.failureThreshold)) return { kind: 'after', periodMs: timing.periodMs };
      onFailed({ failures: count.failures, lastFailure: count.lastFailure ?? 'failed' });
      return { kind: 'stop' };
    },
    signal,
  );
}

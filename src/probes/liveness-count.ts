import type { ProbeOutcome } from './probe.ts';

// The pure half of watchLiveness: consecutive failures, as Kubernetes counts
// them. A pass wipes the count, so only an unbroken run of failureThreshold
// failures (about failureThreshold × period of trouble) condemns the process.

export interface LivenessCount {
  /** Consecutive failures up to now. */
  readonly failures: number;
  /** The reason of the latest failure in the run; undefined while there is none. */
  readonly lastFailure: string | undefined;
}

export const INITIAL_LIVENESS_COUNT: LivenessCount = { failures: 0, lastFailure: undefined };

export function countLiveness(count: LivenessCount, outcome: ProbeOutcome): LivenessCount {
  if (outcome.ok) return INITIAL_LIVENESS_COUNT;
  return { failures: count.failures + 1, lastFailure: outcome.reason };
}

export function isLivenessFailed(count: LivenessCount, failureThreshold: number): boolean {
  return count.failures >= failureThreshold;
}

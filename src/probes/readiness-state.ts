import type { ProbeOutcome } from './probe.ts';

// The pure half of watchReadiness: what each outcome does to the process's
// ready state. Not ready until the first pass; afterwards every answer that
// differs from the current state flips it. A readiness failure never restarts
// anything, so there is no threshold: the state is the latest answer.

export interface ReadinessState {
  readonly ready: boolean;
  /** Passed at least once: from then on the slower periodAfterStart applies. */
  readonly started: boolean;
  /** Attempts since the last change (or since the watch began). */
  readonly attempts: number;
  /** The most recent failure's reason; undefined until one fails. */
  readonly lastFailure: string | undefined;
}

export interface ReadinessChange {
  readonly ready: boolean;
  /** Attempts that led to this change, the deciding one included. */
  readonly attempts: number;
  readonly lastFailure: string | undefined;
}

export const INITIAL_READINESS: ReadinessState = { ready: false, started: false, attempts: 0, lastFailure: undefined };

export function nextReadiness(
  state: ReadinessState,
  outcome: ProbeOutcome,
): { state: ReadinessState; change: ReadinessChange | undefined } {
  const attempts = state.attempts + 1;
  const lastFailure = outcome.ok ? state.lastFailure : outcome.reason;
  if (outcome.ok === state.ready) return { state: { ...state, attempts, lastFailure }, change: undefined };
  return {
    state: { ready: outcome.ok, started: state.started || outcome.ok, attempts: 0, lastFailure },
    change: { ready: outcome.ok, attempts, lastFailure },
  };
}

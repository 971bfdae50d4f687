import type { Probe } from './probe.ts';
import { runProbeLoop } from './probe-loop.ts';
import { INITIAL_READINESS, nextReadiness } from './readiness-state.ts';

// Keeps a process's ready state current for as long as the caller wants it:
// fast (periodMs, and at once on each wake) until the first pass, then at the
// slower periodAfterStartMs. It reports changes only. There is no deadline:
// the lifecycle owns the startup deadline, as a timer that spans restarts.

export interface ReadinessTiming {
  /** Time between the start of one attempt and the start of the next, until the first pass. */
  readonly periodMs: number;
  /** Bound on one attempt. */
  readonly timeoutMs: number;
  /** The period once the probe has passed, whatever it says afterwards. */
  readonly periodAfterStartMs: number;
}

export interface ReadinessDetail {
  /** Attempts that led to this change, the deciding one included. */
  readonly attempts: number;
  /** The latest failure's reason: why it became not ready, or what kept it from being ready before. */
  readonly lastFailure: string | undefined;
}

/** Called on changes only: the first pass (true), a later failure (false), a recovery (true). Never after abort. */
export type HandleReadinessChange = (ready: boolean, detail: ReadinessDetail) => void;

export function watchReadiness(probe: Probe, timing: ReadinessTiming, onChange: HandleReadinessChange, signal: AbortSignal): void {
  let state = INITIAL_READINESS;
  runProbeLoop(
    probe,
    { timeoutMs: timing.timeoutMs, firstAttemptAfterMs: 0, wakes: true },
    (outcome) => {
      const next = nextReadiness(state, outcome);
      state = next.state;
      if (next.change !== undefined) onChange(next.change.ready, { attempts: next.change.attempts, lastFailure: next.change.lastFailure });
      return { kind: 'after', periodMs: state.started ? timing.periodAfterStartMs : timing.periodMs };
    },
    signal,
  );
}

import type { Probe, ProbeOutcome } from './probe.ts';
import { failure, MAX_TIMER_MS } from '../attempt/run-attempt.ts';
import { monotonicMs } from '../support/monotonic-clock.ts';

// The one scheduler behind readiness and liveness: when attempts start, how
// long each may take, what a wake does, and what an abort ends. Attempts never
// overlap; the next one is due periodMs after the start of the previous, or at
// once if that one overran; a wake starts one now, or right after the one in
// flight (its answer may predate the change that caused the wake). Aborting
// ends the pause or the attempt in flight (killing an exec probe's process),
// and the subscription, and no callback comes after it. An attempt never
// starts from inside the previous one's answer: an answer arrives as a promise
// callback, and an attempt that resolves at once (a /proc search) would chain
// the next one as another microtask, forever, with no turn of the event loop
// left for a signal. So the next attempt always waits for a timer, even when
// it is already due.

/** What the loop does after an attempt: the next one periodMs after this one started, or nothing more. */
export type NextAttempt = { readonly kind: 'after'; readonly periodMs: number } | { readonly kind: 'stop' };

export interface ProbeLoopTiming {
  /** Bound on one attempt. */
  readonly timeoutMs: number;
  /** Pause before the first attempt (liveness' initialDelay); 0 starts it at once. */
  readonly firstAttemptAfterMs: number;
  /** Whether the probe's wakes start attempts early. */
  readonly wakes: boolean;
}

export type HandleOutcome = (outcome: ProbeOutcome) => NextAttempt;

export function runProbeLoop(probe: Probe, timing: ProbeLoopTiming, handleOutcome: HandleOutcome, signal: AbortSignal): void {
  if (signal.aborted) return;
  // Ends attempts and the subscription both when the caller aborts and when the
  // loop stops by itself; the caller's long-lived signal keeps no listener then.
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let inFlight = false;
  let wakePending = false;
  let subscribed = false;

  const end = (): void => {
    clearTimeout(timer);
    timer = undefined;
    signal.removeEventListener('abort', end);
    stop.abort();
  };

  const attempt = (): void => {
    clearTimeout(timer);
    timer = undefined;
    inFlight = true;
    wakePending = false;
    const startedAt = monotonicMs();
    void checkSafely(probe, timing.timeoutMs, stop.signal).then((outcome) => handleAnswer(outcome, startedAt));
    // Right after the first attempt starts, in the same turn: whatever changes
    // from here on either shows in that attempt or wakes the loop, and a wake
    // from inside subscribe only marks the attempt in flight as stale.
    if (timing.wakes && !subscribed) {
      subscribed = true;
      probe.subscribe?.(wake, stop.signal);
    }
  };

  const handleAnswer = (outcome: ProbeOutcome, startedAt: number): void => {
    inFlight = false;
    if (stop.signal.aborted) return;
    let next: NextAttempt;
    try {
      next = handleOutcome(outcome);
    } catch (error) {
      // The caller's bug; it surfaces as an unhandled rejection, but the loop lets go of everything first.
      end();
      throw error;
    }
    // The handler may have aborted the caller's signal itself.
    if (stop.signal.aborted) return;
    if (next.kind === 'stop') return end();
    nextAttemptAt(wakePending ? monotonicMs() : startedAt + next.periodMs);
  };

  // From an answer: always through a timer, so the event loop turns (signals,
  // I/O, other timers) between two attempts however long the last one took.
  const nextAttemptAt = (dueAt: number): void => {
    timer = setTimeout(() => startAt(dueAt), Math.min(Math.max(0, Math.ceil(dueAt - monotonicMs())), MAX_TIMER_MS));
  };

  // Node measures a timer from the loop's cached clock, so after a slow turn it
  // can fire a little early; it is re-armed for the rest rather than trusted.
  const startAt = (dueAt: number): void => {
    const remainingMs = dueAt - monotonicMs();
    if (remainingMs <= 0) return attempt();
    timer = setTimeout(() => startAt(dueAt), Math.min(Math.ceil(remainingMs), MAX_TIMER_MS));
  };

  const wake = (): void => {
    if (stop.signal.aborted) return;
    if (inFlight) wakePending = true;
    else attempt();
  };

  signal.addEventListener('abort', end, { once: true });
  startAt(monotonicMs() + timing.firstAttemptAfterMs);
}

/** The contract says check never throws or rejects; a probe that breaks it fails its attempt, not the loop. */
function checkSafely(probe: Probe, timeoutMs: number, signal: AbortSignal): Promise<ProbeOutcome> {
  const asFailure = (error: unknown): ProbeOutcome =>
    failure(`${probe.description}: ${error instanceof Error ? error.message : String(error)}`);
  try {
    return probe.check(timeoutMs, signal).catch(asFailure);
  } catch (error) {
    return Promise.resolve(asFailure(error));
  }
}

import { setTimeout as sleep } from 'node:timers/promises';
import type { Probe, ProbeOutcome } from './probe.ts';
import { MAX_TIMER_MS } from './run-attempt.ts';

// Repeats a probe until it passes, its deadline passes, or the caller aborts.
// Attempts start every periodMs from the start of the previous one and never
// overlap: an attempt that overruns the period is followed at once by the next.
// The deadline is its own timer, so it also cuts an attempt in flight instead of
// being noticed only between attempts.

/** Node timers count whole milliseconds, so one may fire a fraction of one before performance.now() says it is due. */
const TIMER_GRANULARITY_MS = 1;

export type ReadyResult =
  | { readonly kind: 'ready'; readonly attempts: number; readonly elapsedMs: number }
  | { readonly kind: 'deadline'; readonly attempts: number; readonly lastFailure: string }
  | { readonly kind: 'aborted' };

export interface ReadyTiming {
  /** Time between the start of one attempt and the start of the next. */
  readonly periodMs: number;
  /** Bound on one attempt. */
  readonly timeoutMs: number;
  /** Bound on the whole wait, from the call. */
  readonly deadlineMs: number;
}

export async function waitForReady(probe: Probe, timing: ReadyTiming, signal: AbortSignal): Promise<ReadyResult> {
  if (signal.aborted) return { kind: 'aborted' };
  const startedAt = performance.now();
  const elapsed = (): number => performance.now() - startedAt;

  // One internal signal ends the attempt in flight or the pause between
  // attempts, for either reason; `stopped` remembers which one came first.
  const stop = new AbortController();
  let stopped: 'deadline' | 'aborted' | undefined;
  const stopFor = (reason: 'deadline' | 'aborted'): void => {
    stopped ??= reason;
    stop.abort();
  };
  const onAbort = (): void => stopFor('aborted');
  signal.addEventListener('abort', onAbort, { once: true });
  const deadlineTimer = setTimeout(() => stopFor('deadline'), Math.min(timing.deadlineMs, MAX_TIMER_MS));

  let attempts = 0;
  let lastFailure: string | undefined;
  try {
    for (;;) {
      const attemptStartedAt = elapsed();
      const remainingMs = timing.deadlineMs - attemptStartedAt;
      // An attempt cut to the time left times out together with the deadline,
      // possibly a hair before its timer: starting another would only run a
      // probe (maybe a process) to kill it at once.
      if (remainingMs <= TIMER_GRANULARITY_MS) return finalResult('deadline', attempts, lastFailure);
      attempts += 1;
      const timeoutMs = Math.min(timing.timeoutMs, remainingMs);
      const outcome: ProbeOutcome = await probe.check(timeoutMs, stop.signal);
      // A pass that raced a stop still counts unless the caller aborted: the
      // sidecar was ready, and reporting it is more useful than a deadline.
      if (outcome.ok && stopped !== 'aborted') return { kind: 'ready', attempts, elapsedMs: Math.round(elapsed()) };
      // An attempt cut short by the stop only says "aborted"; the reason of the
      // last attempt that finished on its own is the one worth reporting.
      if (!outcome.ok && stopped === undefined) lastFailure = outcome.reason;
      if (stopped !== undefined) return finalResult(stopped, attempts, lastFailure);

      // A loop, not one sleep: Node measures a timer from the loop's cached clock,
      // so after a slow turn (a spawn takes a few ms) it can fire early.
      const nextAttemptAt = attemptStartedAt + timing.periodMs;
      while (stopped === undefined && elapsed() < nextAttemptAt) {
        await sleep(nextAttemptAt - elapsed(), undefined, { signal: stop.signal }).catch(() => undefined);
      }
      if (stopped !== undefined) return finalResult(stopped, attempts, lastFailure);
    }
  } finally {
    clearTimeout(deadlineTimer);
    signal.removeEventListener('abort', onAbort);
  }
}

function finalResult(stopped: 'deadline' | 'aborted', attempts: number, lastFailure: string | undefined): ReadyResult {
  if (stopped === 'aborted') return { kind: 'aborted' };
  return { kind: 'deadline', attempts, lastFailure: lastFailure ?? 'no attempt finished before the deadline' };
}

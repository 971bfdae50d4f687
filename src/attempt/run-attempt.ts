// The frame every bounded attempt shares (a probe's check, a hook's run): it
// settles once, on its own answer, its timeout or an abort, whichever comes first; then it releases what
// the attempt holds (socket, request, process) and resolves only after that, so a
// caller that sees the outcome knows nothing of the attempt is still alive.

/** One attempt's answer: a probe's verdict or a hook's result. */
export type AttemptOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Ends the attempt's resources; an exec probe's returns once its process is gone. */
export type ReleaseAttempt = () => void | Promise<void>;

/** Starts the attempt; calls settle with its answer (at most once matters) and returns how to release it. */
export type StartAttempt = (settle: (outcome: AttemptOutcome) => void) => ReleaseAttempt;

export const ABORTED_REASON = 'aborted';

/** setTimeout's ceiling; Node turns a longer delay into 1ms, which would fail every attempt at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export function runAttempt(timeoutMs: number, signal: AbortSignal, start: StartAttempt): Promise<AttemptOutcome> {
  if (signal.aborted) return Promise.resolve(failure(ABORTED_REASON));
  return new Promise((resolvePromise) => {
    let answer: AttemptOutcome | undefined;
    let release: ReleaseAttempt | undefined;
    let finished = false;

    // Needs both the answer and the release function; either may come first,
    // since a probe can answer synchronously from inside start().
    const finish = (): void => {
      if (finished || answer === undefined || release === undefined) return;
      finished = true;
      const outcome = answer;
      let releasing: Promise<void> | undefined;
      try {
        releasing = release() ?? undefined;
      } catch {
        // A failed cleanup must not turn the outcome into a rejection.
      }
      Promise.resolve(releasing)
        .catch(noop)
        .then(() => resolvePromise(outcome));
    };
    const settle = (outcome: AttemptOutcome): void => {
      if (timer === undefined) return; // already settled
      clearTimeout(timer);
      timer = undefined;
      signal.removeEventListener('abort', onAbort);
      answer = outcome;
      finish();
    };
    const onAbort = (): void => settle(failure(ABORTED_REASON));
    let timer: NodeJS.Timeout | undefined = setTimeout(
      () => settle(failure(`timed out after ${timeoutMs}ms`)),
      Math.min(timeoutMs, MAX_TIMER_MS),
    );
    signal.addEventListener('abort', onAbort, { once: true });

    try {
      release = start(settle);
    } catch (error) {
      release = noop;
      settle(failure(`could not start: ${error instanceof Error ? error.message : String(error)}`));
    }
    // The answer may have come synchronously, before release existed.
    finish();
  });
}

export function failure(reason: string): AttemptOutcome {
  return { ok: false, reason };
}

function noop(): void {}

import type { LogMatcher } from './log-matcher.ts';
import type { Probe } from './probe.ts';
import type { ReadinessChannel } from './readiness-channel.ts';
import { failure, runAttempt } from '../attempt/run-attempt.ts';

// A probe that passes once something has happened and stays passed: the
// process printed a matching line (log), or said it is ready on its channel
// (notify, fd). What watches for it does the work as it arrives; a check only
// reads the flag, and the event itself wakes the loop, so readiness follows
// the line, READY=1 or the newline within milliseconds.

/** A flag set once (until its run ends), and who to tell at that moment. */
interface Latch {
  isSet(): boolean;
  /** Calls wake when the flag is set; returns how to stop listening. */
  onSet(wake: () => void): () => void;
}

function createLatchedProbe(description: string, notYet: string, latch: Latch): Probe {
  const notYetFailure = failure(`${description}: ${notYet}`);
  return {
    description,
    check: (timeoutMs, signal) =>
      runAttempt(timeoutMs, signal, (settle) => {
        settle(latch.isSet() ? { ok: true } : notYetFailure);
        return noop;
      }),
    subscribe: (wake, signal) => {
      if (signal.aborted) return;
      const unsubscribe = latch.onSet(wake);
      signal.addEventListener('abort', unsubscribe, { once: true });
    },
  };
}

/** Passes once the process has printed a line its matcher matches. */
export function createLogProbe(matcher: LogMatcher): Probe {
  return createLatchedProbe(`log:${matcher.pattern}`, 'no line matched yet', {
    isSet: () => matcher.matched,
    onSet: (wake) => matcher.onMatch(wake),
  });
}

/** Passes once the process has said it is ready on its channel (notify or fd). */
export function createChannelProbe(channel: ReadinessChannel, description: string): Probe {
  return createLatchedProbe(description, 'the process has not said it is ready yet', {
    isSet: () => channel.ready,
    onSet: (wake) => channel.onReady(wake),
  });
}

function noop(): void {}

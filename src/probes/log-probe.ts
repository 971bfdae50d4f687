import type { LogMatcher } from './log-matcher.ts';
import type { Probe } from './probe.ts';
import { failure, runAttempt } from '../attempt/run-attempt.ts';

// Passes once the process has printed a matching line. The matcher does the
// work as output arrives; a check only reads its flag, and the match itself
// wakes the loop, so readiness follows the line within milliseconds.

export function createLogProbe(matcher: LogMatcher): Probe {
  const description = `log:${matcher.pattern}`;
  const notYet = failure(`${description}: no line matched yet`);
  return {
    description,
    check: (timeoutMs, signal) =>
      runAttempt(timeoutMs, signal, (settle) => {
        settle(matcher.matched ? { ok: true } : notYet);
        return noop;
      }),
    subscribe: (wake, signal) => {
      if (signal.aborted) return;
      const unsubscribe = matcher.onMatch(wake);
      signal.addEventListener('abort', unsubscribe, { once: true });
    },
  };
}

function noop(): void {}

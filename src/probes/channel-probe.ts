import type { Probe } from './probe.ts';
import type { ReadinessChannel } from './readiness-channel.ts';
import { failure, runAttempt } from '../attempt/run-attempt.ts';

// Passes once the process has said it is ready on its channel (notify or fd).
// A check reads the channel's flag; the message itself wakes the loop, so
// readiness follows READY=1 (or the newline) within milliseconds.

export function createChannelProbe(channel: ReadinessChannel, description: string): Probe {
  const notYet = failure(`${description}: the process has not said it is ready yet`);
  return {
    description,
    check: (timeoutMs, signal) =>
      runAttempt(timeoutMs, signal, (settle) => {
        settle(channel.ready ? { ok: true } : notYet);
        return noop;
      }),
    subscribe: (wake, signal) => {
      if (signal.aborted) return;
      const unsubscribe = channel.onReady(wake);
      signal.addEventListener('abort', unsubscribe, { once: true });
    },
  };
}

function noop(): void {}

import { constants } from 'node:os';
import type { NativeProcessApi } from './native.ts';

// The JavaScript side of the addon's signal forwarding (signal-forward.c): the
// route the lifecycle decides is handed to the signal handler, which passes
// each signal on as it arrives, however busy the event loop is; the listener
// (receiveSignal) then asks how that went, to log it and tell the lifecycle.

/** What the handler did with one delivery: passed it on, or found the app gone. */
export type ForwardOutcome = 'forwarded' | 'gone';

export interface SignalForwarder {
  /**
   * From now on each signal of `sentAs` goes to `target` (kill()'s: -pgid or
   * pid; 0 for none) as the signal it maps to; every other one is the
   * listener's. Cheap to call after every event: the addon hears only changes.
   */
  route(target: number, sentAs: ReadonlyMap<NodeJS.Signals, NodeJS.Signals>): void;
  /** One delivery of `signal`: what the handler did with it, or undefined when it is the caller's to route. */
  take(signal: NodeJS.Signals): ForwardOutcome | undefined;
}

const OUTCOMES = [undefined, 'forwarded', 'gone'] as const;

/**
 * The forwarder for `signals`; start() installs the handler, once each of them
 * has its listener (process.on): the handler calls libuv's after its own work,
 * which is how the listener still hears of every delivery.
 */
export function createSignalForwarder(
  native: NativeProcessApi,
  signals: readonly NodeJS.Signals[],
): SignalForwarder & { start(): void; stop(): void } {
  let last = '';
  return {
    start: () => native.forwardSignals(signals.map((signal) => constants.signals[signal])),
    stop: () => native.unforwardSignals(),
    route(target, sentAs) {
      const pairs = target === 0 ? [] : [...sentAs].flatMap(([signal, as]) => [constants.signals[signal], constants.signals[as]]);
      const key = `${target}:${pairs.join(',')}`;
      if (key === last) return;
      last = key;
      // No pidfd (Linux < 5.3): nothing is routed, and the listener forwards every signal as it did before the addon did.
      native.setSignalRoute(target, pairs);
    },
    take: (signal) => OUTCOMES[native.takeForwarded(constants.signals[signal])],
  };
}

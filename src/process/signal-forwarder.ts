import { constants } from 'node:os';
import type { SignalForwardApi } from '../os/addon.ts';
import { signalOfNumber } from '../plan/signal-sets.ts';

// The JavaScript side of the addon's signal forwarding (signal-forward.c): the
// route the lifecycle decides is handed to the signal handler, which passes
// each signal on as it arrives, however busy the event loop is, and counts
// it; JavaScript hears of what was passed on a window later, in counts, so
// that the work that follows a forward (its log line, the lifecycle's event)
// never competes with the app the signal has just woken.

/**
 * How long after the first signal passed on JavaScript hears of it (and of
 * every one passed on meanwhile): one wake and one `forwarded` line per
 * signal per window, however many arrive. Short enough that the line reads
 * as immediate; long enough that a burst or a series a few tens of
 * milliseconds apart is one wake (bench/signal-forward.ts, "spaced").
 */
export const FORWARD_WINDOW_MS = 200;

/** What the handler did with a signal since JavaScript last asked: passed on `forwarded` times, found the app gone `gone` times. */
export interface ForwardCount {
  readonly signal: NodeJS.Signals;
  readonly forwarded: number;
  readonly gone: number;
}

export interface SignalForwarder {
  /**
   * From now on each signal of `sentAs` goes to `target` (kill()'s: -pgid or
   * pid; 0 for none) as the signal it maps to; every other one is the
   * listener's. Cheap to call after every event: the addon hears only changes.
   */
  route(target: number, sentAs: ReadonlyMap<NodeJS.Signals, NodeJS.Signals>): void;
  /**
   * One delivery of `signal` the listener heard of: true when the handler
   * passed it on (it is in the next takeCounts()); false when it is the
   * caller's to route.
   */
  take(signal: NodeJS.Signals): boolean;
  /** How many deliveries of `signal` the listener's one call stands for: more than one when the handler merged a flood (it hands on at most one per window). */
  deliveries(signal: NodeJS.Signals): number;
  /** What the handler passed on since the last call, in the order each signal first came; empty when nothing. */
  takeCounts(): ForwardCount[];
}

/**
 * The forwarder for `signals`; start() installs the handler, once each of them
 * has its listener (process.on), with `onForwarded` called a window after
 * the first signal passed on (takeCounts() then says what). A signal that
 * other JavaScript listens for too (Node's tty for SIGWINCH, a --import hook)
 * still reaches its listeners at every delivery: the handler is told which,
 * as listeners come and go.
 */
export function createSignalForwarder(
  native: SignalForwardApi,
  signals: readonly NodeJS.Signals[],
): SignalForwarder & { start(onForwarded: () => void): void; stop(): void } {
  let last = '';
  let chained = '';
  const forwarded = new Set<string | symbol>(signals);
  /** `adding`: the listener about to be added ('newListener' comes before it is). */
  const updateChained = (adding?: string | symbol): void => {
    // The supervisor's own listener is one of each signal's; any other makes it chained.
    const numbers = signals
      .filter((signal) => process.listenerCount(signal) + (signal === adding ? 1 : 0) > 1)
      .map((signal) => constants.signals[signal]);
    const key = numbers.join(',');
    if (key === chained) return;
    chained = key;
    native.setChainedSignals(numbers);
  };
  const onNewListener = (event: string | symbol) => forwarded.has(event) && updateChained(event);
  const onRemoveListener = (event: string | symbol) => forwarded.has(event) && updateChained();
  return {
    start(onForwarded) {
      updateChained();
      process.on('newListener', onNewListener);
      process.on('removeListener', onRemoveListener);
      native.forwardSignals(
        signals.map((signal) => constants.signals[signal]),
        onForwarded,
        FORWARD_WINDOW_MS,
      );
    },
    stop() {
      native.unforwardSignals();
      process.off('newListener', onNewListener);
      process.off('removeListener', onRemoveListener);
    },
    route(target, sentAs) {
      const pairs = target === 0 ? [] : [...sentAs].flatMap(([signal, as]) => [constants.signals[signal], constants.signals[as]]);
      const key = `${target}:${pairs.join(',')}`;
      if (key === last) return;
      last = key;
      // No pidfd (Linux < 5.3): nothing is routed, and the listener forwards every signal as it did before the addon did.
      native.setSignalRoute(target, pairs);
    },
    take: (signal) => native.takeForwarded(constants.signals[signal]),
    deliveries: (signal) => Math.max(1, native.takeHandedOver(constants.signals[signal])),
    takeCounts() {
      const flat = native.takeForwardCounts();
      const counts: ForwardCount[] = [];
      for (let index = 0; index + 2 < flat.length; index += 3) {
        counts.push({ signal: signalOfNumber(flat[index]!)!, forwarded: flat[index + 1]!, gone: flat[index + 2]! });
      }
      return counts;
    },
  };
}

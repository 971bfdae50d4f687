import type { TimerKey } from '../lifecycle/events.ts';
import { timerId } from '../lifecycle/events.ts';

export interface Timers {
  start(timer: TimerKey, ms: number): void;
  cancel(timer: TimerKey): void;
  clear(): void;
}

/** The lifecycle's named timers; one per key, a restart replaces the old one. */
export function createTimers(onFire: (timer: TimerKey) => void): Timers {
  const running = new Map<string, NodeJS.Timeout>();
  const cancel = (timer: TimerKey) => {
    clearTimeout(running.get(timerId(timer)));
    running.delete(timerId(timer));
  };
  return {
    start(timer, ms) {
      cancel(timer);
      running.set(
        timerId(timer),
        setTimeout(() => {
          running.delete(timerId(timer));
          onFire(timer);
        }, ms),
      );
    },
    cancel,
    clear() {
      for (const handle of running.values()) clearTimeout(handle);
      running.clear();
    },
  };
}

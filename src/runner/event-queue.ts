import type { LifecycleEvent, LifecycleEventBody } from '../lifecycle/events.ts';
import { monotonicMs } from '../support/monotonic-clock.ts';

export interface EventQueue {
  /** Stamps the event with the time it arrived and handles it after those before it. */
  dispatch(event: LifecycleEventBody): void;
}

/**
 * The lifecycle's single queue. Events are handled one at a time, in arrival
 * order, even when handling one raises another synchronously (a failed spawn
 * reports its exit at once), so decide() always sees a settled state.
 */
export function createEventQueue(handle: (event: LifecycleEvent) => void): EventQueue {
  const queue: LifecycleEvent[] = [];
  let handling = false;
  return {
    dispatch(event) {
      queue.push({ ...event, at: monotonicMs() });
      if (handling) return;
      handling = true;
      try {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) handle(next);
      } finally {
        handling = false;
      }
    },
  };
}

// Plain promises around setTimeout and setImmediate, not node:timers/promises:
// that module is one more compiled from source at every start under --jitless
// (the executable's flag), for what a few lines do here.

/** Resolves after `ms`, or as soon as `signal` aborts (at once if it already has); never rejects. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Resolves on the next turn of the event loop, after the I/O that is waiting (setImmediate). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

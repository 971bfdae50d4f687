/** AbortControllers by key, for the runner's long-running work (probe loops, hooks, drain). */
export interface Aborts {
  /** A fresh signal for `key`, aborting any previous one under the same key. */
  open(key: string): AbortSignal;
  abort(key: string): void;
  /** Forgets `key` once its work has ended on its own. */
  close(key: string, signal: AbortSignal): void;
  abortAll(): void;
}

export function createAborts(): Aborts {
  const controllers = new Map<string, AbortController>();
  const abort = (key: string) => {
    controllers.get(key)?.abort();
    controllers.delete(key);
  };
  return {
    open(key) {
      abort(key);
      const controller = new AbortController();
      controllers.set(key, controller);
      return controller.signal;
    },
    abort,
    close(key, signal) {
      if (controllers.get(key)?.signal === signal) controllers.delete(key);
    },
    abortAll() {
      for (const controller of controllers.values()) controller.abort();
      controllers.clear();
    },
  };
}

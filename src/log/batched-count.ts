import { monotonicMs } from '../support/monotonic-clock.ts';
/**
 * Turns a stream of counts into at most one report per interval: the first is
 * reported at once, later ones are summed until the interval since the last
 * report has passed. A storm of 3,000 orphans is then a handful of `reaped`
 * lines, not thousands that would flood the container log (and, with a slow
 * log reader, be dropped).
 */
export interface BatchedCount {
  add(count: number): void;
  /** Reports what is pending now (before exiting, so no count is lost). */
  flush(): void;
}

export function createBatchedCount(intervalMs: number, report: (count: number) => void): BatchedCount {
  let pending = 0;
  let lastReport = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;

  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending === 0) return;
    const count = pending;
    pending = 0;
    lastReport = monotonicMs();
    report(count);
  };

  return {
    add(count) {
      pending += count;
      if (timer !== undefined) return;
      const wait = lastReport + intervalMs - monotonicMs();
      if (wait <= 0) return flush();
      timer = setTimeout(flush, wait);
      // A pending report must not keep the process alive; exit paths flush.
      timer.unref();
    },
    flush,
  };
}

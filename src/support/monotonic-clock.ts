/**
 * Milliseconds on a monotonic clock, for durations, deadlines and the time
 * events carry; only differences mean anything. Not `performance.now()`: the
 * global `performance` loads nine perf_hooks modules on first use, which every
 * start paid at its first event (bench/README.md, about 2 ms of CPU).
 */
export function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1_000 + nanoseconds / 1_000_000;
}

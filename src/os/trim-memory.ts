import type { MemoryTrimApi } from './addon.ts';

// A start allocates and frees a few MiB through malloc (V8's parser and
// compiler zones for the bundle, the built-in modules compiled under
// --jitless): free() hands memory back only from the top of the heap, so what
// the start freed below what it still uses stays resident and private for the
// supervisor's whole life (npm run bench's memory scenario prints malloc's
// heap; bench/README.md gives the run before and after the trim). Once the start is over,
// the addon's malloc_trim returns those pages to the kernel.

/** After the start's compiles and V8's memory reducer (1 s after the start, scripts/build-binary.mjs). */
export const MEMORY_TRIM_DELAY_MS = 2_000;

/** What the trim did, for a debug line: resident bytes before and after. */
export interface MemoryTrim {
  readonly released: boolean;
  readonly rssBefore: number;
  readonly rssAfter: number;
}

/**
 * Calls `done` with what the trim did, MEMORY_TRIM_DELAY_MS from now; the timer
 * never holds the process. The function returned cancels it: a run that is
 * already stopping has no idle life left to trim for.
 */
export function scheduleMemoryTrim(native: MemoryTrimApi, done: (trim: MemoryTrim) => void): () => void {
  const timer = setTimeout(() => {
    const rssBefore = process.memoryUsage.rss();
    const released = native.trimMemory();
    done({ released, rssBefore, rssAfter: process.memoryUsage.rss() });
  }, MEMORY_TRIM_DELAY_MS).unref();
  return () => clearTimeout(timer);
}

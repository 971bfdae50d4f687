import { formatDuration } from './duration.ts';
import { normalizePositiveDuration } from './normalize-duration.ts';
import { DEFAULT_BACKOFF_INITIAL_MS, DEFAULT_BACKOFF_MAX_MS, DEFAULT_BACKOFF_RESET_AFTER_MS, type RestartSpec } from './plan.ts';
import { at, type Origin, type Report } from './problem.ts';
import type { Salvaged } from './salvage.ts';
import type { RawBackoff } from './schema.ts';

export type Backoff = Pick<RestartSpec, 'initialBackoffMs' | 'maxBackoffMs' | 'resetAfterMs'>;

export const DEFAULT_BACKOFF: Backoff = {
  initialBackoffMs: DEFAULT_BACKOFF_INITIAL_MS,
  maxBackoffMs: DEFAULT_BACKOFF_MAX_MS,
  resetAfterMs: DEFAULT_BACKOFF_RESET_AFTER_MS,
};

/** `backoff:` with defaults applied; reports and returns undefined when unusable. */
export function normalizeBackoff(raw: Salvaged<RawBackoff>, origin: Origin, report: Report): Backoff | undefined {
  const initialBackoffMs = normalizePositiveDuration(raw.initial, DEFAULT_BACKOFF_INITIAL_MS, at(origin, 'initial'), report);
  const maxBackoffMs = normalizePositiveDuration(raw.max, DEFAULT_BACKOFF_MAX_MS, at(origin, 'max'), report);
  const resetAfterMs = normalizePositiveDuration(raw.resetAfter, DEFAULT_BACKOFF_RESET_AFTER_MS, at(origin, 'resetAfter'), report);
  if (initialBackoffMs === undefined || maxBackoffMs === undefined || resetAfterMs === undefined) return undefined;
  if (initialBackoffMs > maxBackoffMs) {
    // At the value that was written: initial, or a max below the default initial.
    const initial = `initial (${formatDuration(initialBackoffMs)}${raw.initial === undefined ? ', the default' : ''})`;
    const max = `max (${formatDuration(maxBackoffMs)}${raw.max === undefined ? ', the default' : ''})`;
    const message = `${initial} is longer than ${max}; the delay starts at initial and doubles up to max`;
    report(at(origin, raw.initial === undefined ? 'max' : 'initial'), message);
    return undefined;
  }
  return { initialBackoffMs, maxBackoffMs, resetAfterMs };
}

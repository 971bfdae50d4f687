import { parseDuration } from './duration.ts';
import type { Origin, Report } from './problem.ts';
import { quote } from './result.ts';

/** A duration in ms, or `defaultMs` when absent; reports and returns undefined when unusable. */
export function normalizeDuration(
  text: string | undefined,
  defaultMs: number | undefined,
  origin: Origin,
  report: Report,
): number | undefined {
  if (text === undefined) return defaultMs;
  const duration = parseDuration(text);
  if (duration.ok) return duration.value;
  report(origin, duration.message);
  return undefined;
}

/** As normalizeDuration, for timings where zero is nonsense (a probe period, timeout or deadline). */
export function normalizePositiveDuration(text: string | undefined, defaultMs: number, origin: Origin, report: Report): number | undefined {
  const ms = normalizeDuration(text, defaultMs, origin, report);
  if (ms !== 0) return ms;
  report(origin, `${quote(text ?? '')} is zero; give a duration of at least 1ms`);
  return undefined;
}

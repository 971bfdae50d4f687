import { normalizePositiveDuration } from './normalize-duration.ts';
import { parseProbe } from './parse-probe.ts';
import {
  DEFAULT_PROBE_DEADLINE_MS,
  DEFAULT_PROBE_PERIOD_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
  type ProbeSpec,
  type ReadinessSpec,
} from './plan.ts';
import { at, type Origin, type Report } from './problem.ts';
import type { RawReadiness } from './schema.ts';

/**
 * A sidecar's `readiness:` with defaults applied; reports and returns undefined
 * when unusable. Fields may be missing when they failed the schema (already reported).
 */
export function normalizeReadiness(
  raw: Partial<RawReadiness>,
  origin: Origin,
  report: Report,
): ReadinessSpec | undefined {
  const probe = raw.probe === undefined ? undefined : normalizeProbe(raw.probe, at(origin, 'probe'), report);
  const periodMs = normalizePositiveDuration(raw.period, DEFAULT_PROBE_PERIOD_MS, at(origin, 'period'), report);
  const timeoutMs = normalizePositiveDuration(raw.timeout, DEFAULT_PROBE_TIMEOUT_MS, at(origin, 'timeout'), report);
  const deadlineMs = normalizePositiveDuration(raw.deadline, DEFAULT_PROBE_DEADLINE_MS, at(origin, 'deadline'), report);
  if (probe === undefined || periodMs === undefined || timeoutMs === undefined || deadlineMs === undefined) {
    return undefined;
  }
  return { probe, periodMs, timeoutMs, deadlineMs };
}

export function normalizeProbe(text: string, origin: Origin, report: Report): ProbeSpec | undefined {
  const probe = parseProbe(text);
  if (probe.ok) return probe.value;
  report(origin, probe.message);
  return undefined;
}

/** The default timings, for a probe given only by `--ready`. */
export function createDefaultReadiness(probe: ProbeSpec): ReadinessSpec {
  return {
    probe,
    periodMs: DEFAULT_PROBE_PERIOD_MS,
    timeoutMs: DEFAULT_PROBE_TIMEOUT_MS,
    deadlineMs: DEFAULT_PROBE_DEADLINE_MS,
  };
}

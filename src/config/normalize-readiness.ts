import { normalizePositiveDuration } from './normalize-duration.ts';
import { normalizeProbe } from './normalize-probe.ts';
import {
  DEFAULT_PROBE_DEADLINE_MS,
  DEFAULT_PROBE_PERIOD_AFTER_START_MS,
  DEFAULT_PROBE_PERIOD_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
  type ProbeSpec,
  type ReadinessSpec,
} from './plan.ts';
import { at, type Origin, type Report } from './problem.ts';
import type { Salvaged } from './salvage.ts';
import type { RawReadiness } from './schema.ts';

/**
 * A sidecar's `readiness:` with defaults applied; reports and returns undefined
 * when unusable. Fields may be missing when they failed the schema (already reported).
 */
export function normalizeReadiness(raw: Salvaged<RawReadiness>, origin: Origin, report: Report): ReadinessSpec | undefined {
  const probe = raw.probe === undefined ? undefined : normalizeProbe(raw.probe, at(origin, 'probe'), report);
  const periodMs = normalizePositiveDuration(raw.period, DEFAULT_PROBE_PERIOD_MS, at(origin, 'period'), report);
  const timeoutMs = normalizePositiveDuration(raw.timeout, DEFAULT_PROBE_TIMEOUT_MS, at(origin, 'timeout'), report);
  const deadlineMs = normalizePositiveDuration(raw.deadline, DEFAULT_PROBE_DEADLINE_MS, at(origin, 'deadline'), report);
  const periodAfterStartMs = normalizePositiveDuration(
    raw.periodAfterStart,
    DEFAULT_PROBE_PERIOD_AFTER_START_MS,
    at(origin, 'periodAfterStart'),
    report,
  );
  if (
    probe === undefined ||
    periodMs === undefined ||
    timeoutMs === undefined ||
    deadlineMs === undefined ||
    periodAfterStartMs === undefined
  ) {
    return undefined;
  }
  return { probe, periodMs, timeoutMs, deadlineMs, periodAfterStartMs };
}

/** The default timings, for a probe given only by `--ready`. */
export function createDefaultReadiness(probe: ProbeSpec): ReadinessSpec {
  return {
    probe,
    periodMs: DEFAULT_PROBE_PERIOD_MS,
    timeoutMs: DEFAULT_PROBE_TIMEOUT_MS,
    deadlineMs: DEFAULT_PROBE_DEADLINE_MS,
    periodAfterStartMs: DEFAULT_PROBE_PERIOD_AFTER_START_MS,
  };
}

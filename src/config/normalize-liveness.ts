import { normalizeDuration, normalizePositiveDuration } from './normalize-duration.ts';
import { normalizeProbe } from './normalize-probe.ts';
import {
  DEFAULT_LIVENESS_FAILURE_THRESHOLD,
  DEFAULT_LIVENESS_INITIAL_DELAY_MS,
  DEFAULT_LIVENESS_PERIOD_MS,
  DEFAULT_LIVENESS_TIMEOUT_MS,
  type LivenessSpec,
} from './plan.ts';
import { at, valueOrReport, type Origin, type Report } from './problem.ts';
import type { Salvaged } from './salvage.ts';
import type { RawLiveness } from './schema.ts';
import { checkWholeNumber, FAILURE_THRESHOLD_RANGE } from './whole-number.ts';

// A log probe passes once, when its line is seen, and never fails again, so it
// cannot tell whether a process is still alive.
const LOG_LIVENESS_MESSAGE = 'a log probe passes once and stays passed, so it cannot check liveness; use tcp, http, exec or file';

/** `liveness:` with defaults applied; reports and returns undefined when unusable. */
export function normalizeLiveness(raw: Salvaged<RawLiveness>, origin: Origin, report: Report): LivenessSpec | undefined {
  let probe = raw.probe === undefined ? undefined : normalizeProbe(raw.probe, at(origin, 'probe'), report);
  if (probe?.kind === 'log') {
    report(at(origin, 'probe'), LOG_LIVENESS_MESSAGE);
    probe = undefined;
  }
  const periodMs = normalizePositiveDuration(raw.period, DEFAULT_LIVENESS_PERIOD_MS, at(origin, 'period'), report);
  const timeoutMs = normalizePositiveDuration(raw.timeout, DEFAULT_LIVENESS_TIMEOUT_MS, at(origin, 'timeout'), report);
  const failureThreshold =
    raw.failureThreshold === undefined
      ? DEFAULT_LIVENESS_FAILURE_THRESHOLD
      : valueOrReport(checkWholeNumber(raw.failureThreshold, FAILURE_THRESHOLD_RANGE), at(origin, 'failureThreshold'), report);
  const initialDelayMs = normalizeDuration(raw.initialDelay, DEFAULT_LIVENESS_INITIAL_DELAY_MS, at(origin, 'initialDelay'), report);
  if (
    probe === undefined ||
    periodMs === undefined ||
    timeoutMs === undefined ||
    failureThreshold === undefined ||
    initialDelayMs === undefined
  ) {
    return undefined;
  }
  return { probe, periodMs, timeoutMs, failureThreshold, initialDelayMs };
}

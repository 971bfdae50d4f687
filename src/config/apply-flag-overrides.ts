import type { ProcessDraft } from './entry.ts';
import { createDefaultReadiness } from './normalize-readiness.ts';
import type { ProbeSpec, RestartPolicy } from './plan.ts';

/** Per-process values from the command line, checked (check-flag-targets.ts) and keyed by process name. */
export interface FlagOverrides {
  /** --ready: timings come from the file when it has them. */
  readonly readyProbes: ReadonlyMap<string, ProbeSpec>;
  /** --restart: the policy only; backoff and maxRestarts stay as in the file. */
  readonly restartPolicies: ReadonlyMap<string, RestartPolicy>;
  readonly stopSignals: ReadonlyMap<string, NodeJS.Signals>;
  /** --success-code, for the app: replaces the file's list. */
  readonly successCodes: readonly number[] | undefined;
}

/** Flags override the file, field by field. */
export function applyFlagOverrides(draft: ProcessDraft, overrides: FlagOverrides): ProcessDraft {
  const probe = overrides.readyProbes.get(draft.name);
  const policy = overrides.restartPolicies.get(draft.name);
  const stopSignal = overrides.stopSignals.get(draft.name);
  const successCodes = draft.role === 'app' ? overrides.successCodes : undefined;
  return {
    ...draft,
    ...(probe === undefined ? {} : { readiness: withProbe(draft, probe) }),
    ...(policy === undefined ? {} : { restart: { ...draft.restart, policy } }),
    ...(stopSignal === undefined ? {} : { stopSignal }),
    ...(successCodes === undefined ? {} : { successCodes }),
  };
}

function withProbe(draft: ProcessDraft, probe: ProbeSpec) {
  return draft.readiness === undefined ? createDefaultReadiness(probe) : { ...draft.readiness, probe };
}

import { isRestartPolicy, RESTART_POLICIES } from './literals.ts';
import { DEFAULT_BACKOFF, normalizeBackoff } from './normalize-backoff.ts';
import type { RestartPolicy, RestartSpec, Role } from './plan.ts';
import { at, valueOrReport, type Origin, type Report } from './problem.ts';
import { fail, ok, quote, type Result } from './result.ts';
import type { Salvaged } from './salvage.ts';
import type { RawProcess } from './schema.ts';
import { checkWholeNumber, MAX_RESTARTS_RANGE } from './whole-number.ts';

type RawRestart = Salvaged<Pick<RawProcess, 'restart' | 'backoff' | 'maxRestarts'>>;

/** A sidecar restarts on any exit, as Kubernetes restarts a sidecar; an init step and the app run once. */
export function defaultRestartPolicy(role: Role): RestartPolicy {
  return role === 'sidecar' ? 'always' : 'never';
}

export function createDefaultRestart(role: Role): RestartSpec {
  return { policy: defaultRestartPolicy(role), ...DEFAULT_BACKOFF, maxRestarts: undefined };
}

/**
 * An init step is done when it exits 0, so restarting it then would never let
 * the sequence go on: `always` is a mistake there, `on-failure` is the retry.
 * Shared by the file and `--restart`.
 */
export function checkPolicyForRole(policy: RestartPolicy, role: Role | undefined): string | undefined {
  if (policy !== 'always' || role !== 'init') return undefined;
  return 'an init step is done once it exits 0, so it cannot restart always; use on-failure to retry a failing step';
}

/** restart, backoff and maxRestarts of a process; reports and returns undefined when unusable. */
export function normalizeRestart(raw: RawRestart, role: Role | undefined, origin: Origin, report: Report): RestartSpec | undefined {
  const policy = raw.restart ?? defaultRestartPolicy(role ?? 'init');
  const policyProblem = checkPolicyForRole(policy, role);
  if (policyProblem !== undefined) report(at(origin, 'restart'), policyProblem);
  const backoff = normalizeBackoff(raw.backoff ?? {}, at(origin, 'backoff'), report);
  const maxRestarts =
    raw.maxRestarts === undefined
      ? undefined
      : valueOrReport(checkWholeNumber(raw.maxRestarts, MAX_RESTARTS_RANGE), at(origin, 'maxRestarts'), report);
  const maxRestartsFailed = raw.maxRestarts !== undefined && maxRestarts === undefined;
  if (policyProblem !== undefined || backoff === undefined || maxRestartsFailed) return undefined;
  return { policy, ...backoff, maxRestarts };
}

/** POLICY of `--restart NAME=POLICY`. */
export function parseRestartPolicy(text: string): Result<RestartPolicy> {
  if (isRestartPolicy(text)) return ok(text);
  return fail(`${quote(text)} is not a restart policy; use ${RESTART_POLICIES.join(', ')}`);
}

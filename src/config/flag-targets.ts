import type { FlagConfig, TargetFlag } from './flags.ts';
import type { ProbeSpec, ProcessUser, RestartPolicy, Role } from '../plan/plan.ts';
import { stopWithQuitUrl } from './external.ts';
import { withReadinessDefaults } from './probe.ts';
import { EXTERNAL_SELF_REPORTED, type Entry, type ProcessDraft } from './process.ts';
import type { Report } from './problem.ts';
import { checkPolicyForRole } from './restart.ts';
import { quote } from './result.ts';

// --ready, --restart, --stop-signal and --user set one field of a named process: the
// names are checked once every process is known, then the values override the
// file's, field by field.

const ROLE_NAMES: Readonly<Record<Role, string>> = { init: 'an init step', sidecar: 'a sidecar', app: 'the app', external: 'an external' };

interface TargetRule<Value> {
  /** The roles the flag applies to; undefined: any. */
  readonly roles?: readonly Role[] | undefined;
  /** A problem with the value for this target, e.g. a policy that does not suit its role. */
  readonly checkValue?: ((value: Value, target: Entry) => string | undefined) | undefined;
}

/** Each target flag names a process that exists and suits the flag, once per flag; problems in command-line order. */
export function checkFlagTargets(flags: FlagConfig, entries: readonly Entry[], report: Report): void {
  checkTargets(
    flags.ready,
    entries,
    {
      roles: ['sidecar', 'external'],
      checkValue: (probe, target) =>
        target.role === 'external' && (probe.kind === 'notify' || probe.kind === 'fd') ? EXTERNAL_SELF_REPORTED : undefined,
    },
    report,
  );
  checkTargets(flags.quit, entries, { roles: ['external'] }, report);
  checkTargets(
    flags.restart,
    entries,
    { checkValue: (policy, target) => notExternal('--restart', target) ?? checkPolicyForRole(policy, target.role) },
    report,
  );
  checkTargets(flags.stopSignal, entries, { checkValue: (_signal, target) => notExternal('--stop-signal', target) }, report);
  checkTargets(flags.user, entries, { checkValue: (_user, target) => notExternal('--user', target) }, report);
}

function checkTargets<Value>(
  flags: readonly TargetFlag<Value>[],
  entries: readonly Entry[],
  rule: TargetRule<Value>,
  report: Report,
): void {
  const { roles, checkValue } = rule;
  const seen = new Map<string, TargetFlag<Value>>();
  for (const flag of flags) {
    const earlier = seen.get(flag.name);
    if (earlier !== undefined) {
      report(flag.origin, `${flag.flag} was already given for ${quote(flag.name)}`, earlier.origin);
      continue;
    }
    seen.set(flag.name, flag);
    const target = entries.find((entry) => entry.name === flag.name);
    if (target === undefined) {
      report(flag.origin, `no process is named ${quote(flag.name)}; ${describeTargets(entries, roles)}`);
    } else if (roles !== undefined && target.role !== undefined && !roles.includes(target.role)) {
      report(flag.origin, `${quote(flag.name)} is ${ROLE_NAMES[target.role]}; ${flag.flag} applies only to ${describeRoles(roles)}`);
    } else {
      const problem = flag.value === undefined ? undefined : checkValue?.(flag.value, target);
      if (problem !== undefined) report(flag.origin, problem);
    }
  }
}

/** An external is never started, so nothing about starting or signalling a child of ours applies to it. */
function notExternal(flag: string, target: Entry): string | undefined {
  if (target.role !== 'external') return undefined;
  return `${quote(target.name ?? '')} is an external, a process sidecar-init never starts; ${flag} applies to the processes it starts`;
}

function describeTargets(entries: readonly Entry[], roles: readonly Role[] | undefined): string {
  const names = entries.flatMap((entry) =>
    entry.name !== undefined && (roles === undefined || (entry.role !== undefined && roles.includes(entry.role))) ? [entry.name] : [],
  );
  const what = roles === undefined ? 'processes' : describeRoles(roles);
  return names.length === 0 ? `there are no ${what.replaceAll(' and ', ' or ')}` : `the ${what} are ${names.join(', ')}`;
}

function describeRoles(roles: readonly Role[]): string {
  const plural: Readonly<Record<Role, string>> = { init: 'init steps', sidecar: 'sidecars', app: 'apps', external: 'externals' };
  return roles.map((role) => plural[role]).join(' and ');
}

/** Flags override the file, field by field; called once there are no problems. */
export function applyFlagOverrides(draft: ProcessDraft, flags: FlagConfig): ProcessDraft {
  const probe = valueFor<ProbeSpec>(flags.ready, draft.name);
  const policy = valueFor<RestartPolicy>(flags.restart, draft.name);
  const stopSignal = valueFor<NodeJS.Signals>(flags.stopSignal, draft.name);
  const user = valueFor<ProcessUser>(flags.user, draft.name);
  const quit = valueFor<string>(flags.quit, draft.name);
  // --success-code is the app's, and replaces the file's list.
  const successCodes = draft.role === 'app' ? flags.successCodes : undefined;
  return {
    ...draft,
    // --ready: timings come from the file when it has them.
    ...(probe === undefined
      ? {}
      : { readiness: draft.readiness === undefined ? withReadinessDefaults({ probe }) : { ...draft.readiness, probe } }),
    // --restart: the policy only; backoff and maxRestarts stay as in the file.
    ...(policy === undefined ? {} : { restart: { ...draft.restart, policy } }),
    ...(stopSignal === undefined ? {} : { stopSignal }),
    // --user: user and group together, replacing both of the file's.
    ...(user === undefined ? {} : { user }),
    ...(successCodes === undefined ? {} : { successCodes }),
    // --quit: the external's stop endpoint; a stop signal from the file stays.
    ...(quit === undefined || draft.external === undefined
      ? {}
      : { external: { ...draft.external, stop: stopWithQuitUrl(draft.external.stop, quit) } }),
  };
}

function valueFor<Value>(flags: readonly TargetFlag<Value>[], name: string): Value | undefined {
  return flags.find((flag) => flag.name === name)?.value;
}

import type { FlagConfig, TargetFlag } from './flags.ts';
import type { ProbeSpec, ProcessUser, RestartPolicy, Role } from '../plan/plan.ts';
import { stopWithQuitUrl } from './external.ts';
import { EXTERNAL_STARTED_ONLY_PROBE, isStartedOnlyProbe, withReadinessDefaults } from './probe.ts';
import type { Entry, ProcessDraft } from './process.ts';
import type { Report } from './problem.ts';
import { checkPolicyForRole } from './restart.ts';
import { quote } from './message-text.ts';
import { describeRoles, isStartedOnly, rolesWith } from './roles.ts';

// --ready, --quit, --restart, --stop-signal and --user set one field of a named
// process: the names are checked once every process is known, against the
// roles that have the field, then the values override the file's, field by field.

const ROLE_NAMES: Readonly<Record<Role, string>> = { init: 'an init step', sidecar: 'a sidecar', app: 'the app', external: 'an external' };

/** A message names at most this many of the processes a flag could have named: a config may have thousands. */
const MAX_NAMED_TARGETS = 10;

/** The field each flag sets: the roles that have that field (roles.ts) are the processes the flag can name. */
const FLAG_FIELDS: Readonly<Record<string, string>> = {
  '--ready': 'readiness',
  '--quit': 'stop',
  '--restart': 'restart',
  '--stop-signal': 'stopSignal',
  '--user': 'user',
};

/** Each target flag names a process that exists and has the flag's field, once per flag; problems in command-line order. */
export function checkFlagTargets(flags: FlagConfig, entries: readonly Entry[], report: Report): void {
  checkTargets(flags.ready, entries, report, (probe, target) =>
    target.role === 'external' && isStartedOnlyProbe(probe) ? EXTERNAL_STARTED_ONLY_PROBE : undefined,
  );
  checkTargets(flags.quit, entries, report, (_url, target) => quitOfAnnounced(target));
  checkTargets(flags.restart, entries, report, (policy, target) => checkPolicyForRole(policy, target.role));
  checkTargets(flags.stopSignal, entries, report);
  checkTargets(flags.user, entries, report);
}

/** `checkValue`: a problem with the value for this target, e.g. a policy that does not suit its role. */
function checkTargets<Value>(
  flags: readonly TargetFlag<Value>[],
  entries: readonly Entry[],
  report: Report,
  checkValue?: (value: Value, target: Entry) => string | undefined,
): void {
  const seen = new Map<string, TargetFlag<Value>>();
  const entryNamed = new Map<string, Entry>();
  for (const entry of entries) if (entry.name !== undefined && !entryNamed.has(entry.name)) entryNamed.set(entry.name, entry);
  for (const flag of flags) {
    const roles = rolesWith(FLAG_FIELDS[flag.flag]!);
    // A field of every process sidecar-init starts: named so, and any process may be listed as a candidate.
    const startedOnly = isStartedOnly(roles);
    const earlier = seen.get(flag.name);
    if (earlier !== undefined) {
      report(flag.origin, `${flag.flag} was already given for ${quote(flag.name)}`, earlier.origin);
      continue;
    }
    seen.set(flag.name, flag);
    const target = entryNamed.get(flag.name);
    if (target === undefined) {
      report(flag.origin, `no process is named ${quote(flag.name)}; ${describeTargets(entries, startedOnly ? undefined : roles)}`);
    } else if (target.role !== undefined && !roles.includes(target.role)) {
      report(
        flag.origin,
        startedOnly
          ? notStarted(flag.flag, target)
          : `${quote(flag.name)} is ${ROLE_NAMES[target.role]}; ${flag.flag} applies only to ${describeRoles(roles)}`,
      );
    } else {
      const problem = flag.value === undefined ? undefined : checkValue?.(flag.value, target);
      if (problem !== undefined) report(flag.origin, problem);
    }
  }
}

/** An announced external's stop is waiting for its file; there is no endpoint to call. */
function quitOfAnnounced(target: Entry): string | undefined {
  const file = target.draft?.external?.announced;
  if (file === undefined) return undefined;
  return `${quote(target.name ?? '')} is announced:${file}, another container's sidecar-init: it is never called or signalled, only waited for until its file says exited`;
}

/** An external is never started, so nothing about starting or signalling a child of ours applies to it. */
function notStarted(flag: string, target: Entry): string {
  return `${quote(target.name ?? '')} is an external, a process sidecar-init never starts; ${flag} applies to the processes it starts`;
}

function describeTargets(entries: readonly Entry[], roles: readonly Role[] | undefined): string {
  const names = entries.flatMap((entry) =>
    entry.name !== undefined && (roles === undefined || (entry.role !== undefined && roles.includes(entry.role))) ? [entry.name] : [],
  );
  const what = roles === undefined ? 'processes' : describeRoles(roles);
  if (names.length === 0) return `there are no ${what.replaceAll(' and ', ' or ')}`;
  const more = names.length > MAX_NAMED_TARGETS ? ` and ${names.length - MAX_NAMED_TARGETS} more` : '';
  return `the ${what} are ${names.slice(0, MAX_NAMED_TARGETS).join(', ')}${more}`;
}

/** Flags override the file, field by field; used once there are no problems. Each flag is looked up by name, once. */
export function createFlagOverrides(flags: FlagConfig): (draft: ProcessDraft) => ProcessDraft {
  const [ready, restart, stopSignals, users, quits] = [flags.ready, flags.restart, flags.stopSignal, flags.user, flags.quit].map(byName);
  return (draft) => {
    const probe = ready!.get(draft.name) as ProbeSpec | undefined;
    const policy = restart!.get(draft.name) as RestartPolicy | undefined;
    const stopSignal = stopSignals!.get(draft.name) as NodeJS.Signals | undefined;
    const user = users!.get(draft.name) as ProcessUser | undefined;
    const quit = quits!.get(draft.name) as string | undefined;
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
  };
}

/** Each name's value from the first flag that names it. */
function byName(flags: readonly TargetFlag<unknown>[]): ReadonlyMap<string, unknown> {
  return new Map([...flags].reverse().map((flag) => [flag.name, flag.value]));
}

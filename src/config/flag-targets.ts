import type { FlagConfig, TargetFlag } from './flags.ts';
import type { Role } from '../plan/plan.ts';
import type { Entry, ProcessDraft } from './process.ts';
import type { Report } from './problem.ts';
import { quote } from './message-text.ts';
import { describeRoles, isStartedOnly, rolesWith } from './roles.ts';
import { TARGET_FLAG_NAMES, TARGET_FLAGS } from './target-flags.ts';

// The flags of target-flags.ts set one field of a named process: the names are
// checked once every process is known, against the roles that have the field,
// then the values override the file's, field by field.

const ROLE_NAMES: Readonly<Record<Role, string>> = { init: 'an init step', sidecar: 'a sidecar', app: 'the app', external: 'an external' };

/** A message names at most this many of the processes a flag could have named: a config may have thousands. */
const MAX_NAMED_TARGETS = 10;

/** Each target flag names a process that exists and has the flag's field, once per flag; problems in command-line order. */
export function checkFlagTargets(flags: FlagConfig, entries: readonly Entry[], report: Report): void {
  const entryNamed = new Map<string, Entry>();
  for (const entry of entries) if (entry.name !== undefined && !entryNamed.has(entry.name)) entryNamed.set(entry.name, entry);
  for (const name of TARGET_FLAG_NAMES) checkTargets(flags.targets[name], TARGET_FLAGS[name].field, entries, entryNamed, report);
}

function checkTargets(
  flags: readonly TargetFlag[],
  field: string,
  entries: readonly Entry[],
  entryNamed: ReadonlyMap<string, Entry>,
  report: Report,
): void {
  const roles = rolesWith(field);
  // A field of every process sidecar-init starts: named so, and any process may be listed as a candidate.
  const startedOnly = isStartedOnly(roles);
  const seen = new Map<string, TargetFlag>();
  for (const flag of flags) {
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
      const problem = flag.value?.check(target);
      if (problem !== undefined) report(flag.origin, problem);
    }
  }
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
  const byName = TARGET_FLAG_NAMES.map((name) => firstByName(flags.targets[name]));
  return (draft) => {
    let result = draft;
    for (const flagsOfRow of byName) result = flagsOfRow.get(draft.name)?.value?.apply(result) ?? result;
    // --success-code is the app's, and replaces the file's list.
    const successCodes = draft.role === 'app' ? flags.successCodes : undefined;
    return successCodes === undefined ? result : { ...result, successCodes };
  };
}

/** Each name's flag: the first that names it. */
function firstByName(flags: readonly TargetFlag[]): ReadonlyMap<string, TargetFlag> {
  return new Map([...flags].reverse().map((flag) => [flag.name, flag]));
}

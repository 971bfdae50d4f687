import { type Accounts, parseUser } from './user.ts';
import { parseStopUrl, stopWithQuitUrl } from './external.ts';
import { RESTART_POLICIES } from '../plan/literals.ts';
import { listAlternatives, quote } from '../support/message-text.ts';
import { EXTERNAL_STARTED_ONLY_PROBE, isStartedOnlyProbe, READINESS_TIMING_NAMES, withReadinessDefaults } from './probe.ts';
import { applyReadyFlag, checkReadyFlagTarget, parseReadyFlag } from './ready-flag.ts';
import { type Entry, type ProcessDraft, type ProcessFieldName, rolesWith } from './process.ts';
import { checkPolicyForRole, defaultRestartPolicy, parseRestartPolicy } from './restart.ts';
import { mapResult, type Result } from '../support/result.ts';
import { parseStopSignal } from './signals.ts';
import type { Role } from '../plan/plan.ts';
import { type Origin, type Report, valueOrReport } from './config-error.ts';
import { describeRole, describeRoles, isStartedOnly } from './roles.ts';

// The flags that set one field of a named process (--ready NAME=PROBE, ...),
// one row each. The CLI collects each row's values (create-program.ts); config
// parses them, checks each names a process that has the row's field once every
// process is known, and puts the values over the file's, field by field
// (below): a new flag is a new row here.

export interface TargetFlagSpec<Value> {
  readonly flag: `--${string}`;
  /** The flag's argument in --help. */
  readonly argument: string;
  readonly help: string;
  /** The process field the flag sets: the roles that have it (roles.ts) are the processes it can name. */
  readonly field: ProcessFieldName;
  /** What a value without NAME= should have been, e.g. "NAME=SIGNAL, e.g. --stop-signal nginx=SIGQUIT". */
  readonly expected: string;
  readonly parse: (text: string, accounts: Accounts) => Result<Value>;
  /** A problem with the value for this target, e.g. a policy that does not suit its role. */
  readonly check?: (value: Value, target: Entry) => string | undefined;
  /** The draft with the flag's value over the file's; used once there are no problems. */
  readonly apply: (draft: ProcessDraft, value: Value) => ProcessDraft;
}

/** A value parsed, bound to its row's check and apply: the rows' value types differ, and what uses them needs only these. */
export interface TargetFlagValue {
  readonly check: (target: Entry) => string | undefined;
  readonly apply: (draft: ProcessDraft) => ProcessDraft;
}

/** A row as used: its parser gives the value bound to the row's check and apply. */
export type TargetFlagRow = Omit<TargetFlagSpec<unknown>, 'parse' | 'check' | 'apply'> & {
  readonly parse: (text: string, accounts: Accounts) => Result<TargetFlagValue>;
};

/** One row, its value type inferred from its parser and checked against its check and apply. */
function targetFlag<Value>({ parse, check, apply, ...row }: TargetFlagSpec<Value>): TargetFlagRow {
  return {
    ...row,
    parse: (text, accounts) =>
      mapResult(parse(text, accounts), (value) => ({ check: (target) => check?.(value, target), apply: (draft) => apply(draft, value) })),
  };
}

export const TARGET_FLAGS = {
  ready: targetFlag({
    flag: '--ready',
    argument: '<name=probe[,key=duration]>',
    help: `a sidecar or external is started once PROBE passes: tcp://HOST:PORT, http://HOST:PORT/PATH, grpc://HOST:PORT[/SERVICE], exec:CMD, log:REGEX, file:PATH, notify or fd:N; then, comma-separated, ${READINESS_TIMING_NAMES.join(', ')}, e.g. proxy=tcp://127.0.0.1:15000,deadline=2m,period=500ms (repeatable)`,
    field: 'readiness',
    expected: 'NAME=PROBE, e.g. --ready proxy=http://127.0.0.1:15021/healthz/ready',
    parse: parseReadyFlag,
    check: (ready, target) =>
      ready.probe !== undefined && target.role === 'external' && isStartedOnlyProbe(ready.probe)
        ? EXTERNAL_STARTED_ONLY_PROBE
        : checkReadyFlagTarget(ready, target.draft?.readiness !== undefined, target.name ?? ''),
    // The flag's probe and timings; the others come from the file (or the preset) when it has them.
    apply: (draft, ready) => ({ ...draft, readiness: applyReadyFlag(draft.readiness, ready, (probe) => withReadinessDefaults({ probe })) }),
  }),
  quit: targetFlag({
    flag: '--quit',
    argument: '<name=url>',
    help: "an external's stop endpoint, POSTed at teardown, e.g. mesh=http://127.0.0.1:15020/quitquitquit (repeatable)",
    field: 'stop',
    expected: 'NAME=URL, e.g. --quit mesh=http://127.0.0.1:15020/quitquitquit',
    parse: parseStopUrl,
    // An announced external's stop is waiting for its file; there is no endpoint to call.
    check: (_url, { name = '', draft }) =>
      draft?.external?.announced === undefined
        ? undefined
        : `${quote(name)} is announced:${draft.external.announced}, another container's sidecar-init: it is never called or signalled, only waited for until its file says exited`,
    apply: (draft, url) =>
      draft.external === undefined ? draft : { ...draft, external: { ...draft.external, stop: stopWithQuitUrl(draft.external.stop, url) } },
  }),
  restart: targetFlag({
    flag: '--restart',
    argument: '<name=policy>',
    help: `when NAME is restarted: ${listAlternatives(RESTART_POLICIES)} (default: ${defaultRestartPolicy('sidecar')} for a sidecar, ${defaultRestartPolicy('init')} for an init step and the app) (repeatable)`,
    field: 'restart',
    expected: 'NAME=POLICY, e.g. --restart migrate=on-failure',
    parse: parseRestartPolicy,
    check: (policy, target) => checkPolicyForRole(policy, target.role),
    // The policy only; backoff and maxRestarts stay as in the file.
    apply: (draft, policy) => ({ ...draft, restart: { ...draft.restart, policy } }),
  }),
  stopSignal: targetFlag({
    flag: '--stop-signal',
    argument: '<name=signal>',
    help: 'the signal that stops NAME, e.g. nginx=SIGQUIT (repeatable)',
    field: 'stopSignal',
    expected: 'NAME=SIGNAL, e.g. --stop-signal nginx=SIGQUIT',
    parse: parseStopSignal,
    apply: (draft, stopSignal) => ({ ...draft, stopSignal }),
  }),
  user: targetFlag({
    flag: '--user',
    argument: '<name=user[:group]>',
    help: 'run NAME (and its exec hooks and probes) as USER[:GROUP], a name or a number (repeatable)',
    field: 'user',
    expected: 'NAME=USER[:GROUP], e.g. --user app=nobody or --user app=1000:1000',
    parse: parseUser,
    // User and group together, replacing both of the file's.
    apply: (draft, user) => ({ ...draft, user }),
  }),
} as const;

export type TargetFlagName = keyof typeof TARGET_FLAGS;

export const TARGET_FLAG_NAMES = Object.keys(TARGET_FLAGS) as TargetFlagName[];

/** One value per row, each made by `make`. */
function perRow<Value>(make: (name: TargetFlagName) => Value): { [Name in TargetFlagName]: Value } {
  return Object.fromEntries(TARGET_FLAG_NAMES.map((name) => [name, make(name)])) as { [Name in TargetFlagName]: Value };
}

/** Each row's values as written (NAME=VALUE), in command-line order. */
export type TargetFlagTexts = { readonly [Name in TargetFlagName]: readonly string[] };

export function createTargetFlagTexts(): { [Name in TargetFlagName]: string[] } {
  return perRow(() => []);
}

/** A flag that sets one field of a named process, parsed. */
export interface TargetFlag {
  readonly name: string;
  readonly origin: Origin;
  /** Undefined when the value has problems, already reported. */
  readonly value: TargetFlagValue | undefined;
}

/** Each row's flags, in command-line order. */
export type TargetFlags = { readonly [Name in TargetFlagName]: readonly TargetFlag[] };

/** Every row's values, each split at its NAME= and parsed by its row; problems at the flag. */
export function parseTargetFlags(texts: TargetFlagTexts, accounts: Accounts, report: Report): TargetFlags {
  return perRow((name) => {
    const row: TargetFlagRow = TARGET_FLAGS[name];
    return texts[name].flatMap((text) => {
      const origin: Origin = { kind: 'flag', flag: row.flag, value: text };
      const assignment = splitAssignment(text);
      if (assignment === undefined) {
        report(origin, `expected ${row.expected}`);
        return [];
      }
      const [target, valueText] = assignment;
      return [{ name: target, origin, value: valueOrReport(row.parse(valueText, accounts), origin, report) }];
    });
  });
}

/** NAME=VALUE split at the first "=", so the value may hold more. */
export function splitAssignment(text: string): [string, string] | undefined {
  const index = text.indexOf('=');
  return index < 0 ? undefined : [text.slice(0, index), text.slice(index + 1)];
}

/** A message names at most this many of the processes a flag could have named: a config may have thousands. */
const MAX_NAMED_TARGETS = 10;

/** Each target flag names a process that exists and has the flag's field, once per flag; problems in command-line order. */
export function checkFlagTargets(targets: TargetFlags, entries: readonly Entry[], report: Report): void {
  const entryNamed = new Map<string, Entry>();
  for (const entry of entries) if (entry.name !== undefined && !entryNamed.has(entry.name)) entryNamed.set(entry.name, entry);
  for (const name of TARGET_FLAG_NAMES) checkRowTargets(TARGET_FLAGS[name], targets[name], entries, entryNamed, report);
}

/** One row's flags: each names a process once, a process that exists and has the row's field, and suits it. */
function checkRowTargets(
  { flag, field }: TargetFlagRow,
  given: readonly TargetFlag[],
  entries: readonly Entry[],
  entryNamed: ReadonlyMap<string, Entry>,
  report: Report,
): void {
  // Nothing to check, and rolesWith builds every process field's schema to answer.
  if (given.length === 0) return;
  const roles = rolesWith(field);
  // A field of every process sidecar-init starts: named so, and any process may be listed as a candidate.
  const startedOnly = isStartedOnly(roles);
  const seen = new Map<string, TargetFlag>();
  for (const each of given) {
    const earlier = seen.get(each.name);
    if (earlier !== undefined) {
      report(each.origin, `${flag} was already given for ${quote(each.name)}`, earlier.origin);
      continue;
    }
    seen.set(each.name, each);
    const target = entryNamed.get(each.name);
    if (target === undefined) {
      report(each.origin, `no process is named ${quote(each.name)}; ${describeTargets(entries, startedOnly ? undefined : roles)}`);
    } else if (target.role !== undefined && !roles.includes(target.role)) {
      // An external is never started, so nothing about starting or signalling a child of ours applies to it.
      const message = startedOnly
        ? `${quote(each.name)} is an external, a process sidecar-init never starts; ${flag} applies to the processes it starts`
        : `${quote(each.name)} is ${describeRole(target.role)}; ${flag} applies only to ${describeRoles(roles)}`;
      report(each.origin, message);
    } else {
      const problem = each.value?.check(target);
      if (problem !== undefined) report(each.origin, problem);
    }
  }
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

/**
 * Flags override the file, field by field; used once there are no problems,
 * so no flag is given twice for one process (checkFlagTargets). Each flag is
 * looked up by name, once.
 */
export function createFlagOverrides(flags: {
  readonly targets: TargetFlags;
  readonly successCodes: readonly number[] | undefined;
}): (draft: ProcessDraft) => ProcessDraft {
  const byName = TARGET_FLAG_NAMES.map((name) => new Map(flags.targets[name].map((flag) => [flag.name, flag.value])));
  return (draft) => {
    let result = draft;
    for (const valuesOfRow of byName) result = valuesOfRow.get(draft.name)?.apply(result) ?? result;
    // --success-code is the app's, and replaces the file's list.
    const successCodes = draft.role === 'app' ? flags.successCodes : undefined;
    return successCodes === undefined ? result : { ...result, successCodes };
  };
}

import type { Accounts } from './accounts.ts';
import { parseQuitUrl, stopWithQuitUrl } from './external.ts';
import { RESTART_POLICIES } from './literals.ts';
import { listAlternatives, quote } from './message-text.ts';
import { EXTERNAL_STARTED_ONLY_PROBE, isStartedOnlyProbe, READINESS_TIMING_NAMES, withReadinessDefaults } from './probe.ts';
import { applyReadyFlag, checkReadyFlagTarget, parseReadyFlag } from './ready-flag.ts';
import type { Entry, ProcessDraft } from './process.ts';
import { checkPolicyForRole, defaultRestartPolicy, parseRestartPolicy } from './restart.ts';
import { mapResult, type Result } from './result.ts';
import { parseStopSignal } from './signals.ts';
import { parseUser } from './user.ts';

// The flags that set one field of a named process (--ready NAME=PROBE, ...),
// one row each: the flag and its help, the process field whose roles
// (roles.ts) are the processes it may name, how its value is parsed, what it
// must suit in its target, and how it goes over the file's value. The CLI
// collects each row's values (create-program.ts), config parses and checks
// them (flags.ts, flag-targets.ts): a new flag is a new row here.

export interface TargetFlagSpec<Value> {
  readonly flag: `--${string}`;
  /** The flag's argument in --help. */
  readonly argument: string;
  readonly help: string;
  /** The process field the flag sets: the roles that have it (roles.ts) are the processes it can name. */
  readonly field: string;
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
    parse: parseQuitUrl,
    check: (_url, target) => quitOfAnnounced(target),
    // The external's stop endpoint; a stop signal from the file stays.
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

/** Each row's values as written (NAME=VALUE), in command-line order. */
export type TargetFlagTexts = { readonly [Name in TargetFlagName]: readonly string[] };

export function createTargetFlagTexts(): { [Name in TargetFlagName]: string[] } {
  return Object.fromEntries(TARGET_FLAG_NAMES.map((name) => [name, []])) as unknown as { [Name in TargetFlagName]: string[] };
}

/** An announced external's stop is waiting for its file; there is no endpoint to call. */
function quitOfAnnounced(target: Entry): string | undefined {
  const file = target.draft?.external?.announced;
  if (file === undefined) return undefined;
  return `${quote(target.name ?? '')} is announced:${file}, another container's sidecar-init: it is never called or signalled, only waited for until its file says exited`;
}

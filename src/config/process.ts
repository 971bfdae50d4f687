import { isRecord } from '../support/is-record.ts';
import * as z from 'zod';
import { type Argv, CommandSchema } from './command.ts';
import { duration } from './duration.ts';
import { HookSchema } from './hook.ts';
import { createExternal, EXTERNAL_FIELDS } from './external.ts';
import { OUTPUT_MODES, ROLES } from '../plan/literals.ts';
import { DEFAULTS, type OutputMode, type ProcessSpec, type Role, type SignalTarget } from '../plan/plan.ts';
import { LivenessSchema, readinessField } from './probe.ts';
import { at, fileOrigin, type Origin, type Report } from './config-error.ts';
import { BackoffSchema, createRestart, MaxRestartsSchema, RestartPolicySchema } from './restart.ts';
import { fail, ok } from '../support/result.ts';
import { quote } from '../support/message-text.ts';
import { EXIT_CODE_RANGE, mapping, oneOf, parsedWith, wholeNumber } from './schema-fields.ts';
import { stopSignalField } from './signals.ts';
import { type Accounts, checkUserAndGroup, combineUser, groupField, NO_ACCOUNTS, userField } from './user.ts';
import {
  type ProcessFieldRows,
  optionalField,
  processField,
  READINESS_DESCRIPTION,
  RESTART_DESCRIPTION,
  roleIssue,
  roleSchema,
  STARTED,
  schemasOf,
} from './roles.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

// One process of the plan: an entry of `processes:` in the file, an --init or
// --sidecar flag, or the app given as operands. A field is added here (its
// row in processFields: its roles and its schema; its plan value in
// createDraft) and in ProcessSpec (plan.ts).

/**
 * A process before the plan is built. Two fields depend on the whole
 * configuration and are resolved by buildPlan (load-plan.ts).
 */
export interface ProcessDraft extends Omit<ProcessSpec, 'after' | 'signalTarget' | 'output'> {
  /** As written; undefined when not given. */
  readonly after: readonly string[] | undefined;
  /** From signalGroup; undefined leaves it to singleChild. */
  readonly signalTarget: SignalTarget | undefined;
  /** Its own output; undefined takes the plan's default. */
  readonly output: OutputMode | undefined;
}

/**
 * One process as read from the file, a flag or the app operands, on its way to
 * the plan. The cross-entry rules (names, apps, flag targets, after) work on these.
 */
export interface Entry {
  /** Undefined when unreadable; that problem is already reported. */
  readonly name: string | undefined;
  readonly role: Role | undefined;
  /** Where the entry was defined: processes[i] in the file, or the flag. */
  readonly origin: Origin;
  /** The names in `after:`, when given and readable (only file entries have it). */
  readonly after: readonly string[] | undefined;
  /** Undefined when the configuration has problems. */
  readonly draft: ProcessDraft | undefined;
}

// Process names become log fields, and later status paths and Kubernetes-style
// references, so they follow the rule for Kubernetes container names: an
// RFC 1123 DNS label.
/** Also the `pattern` of `name` in the JSON Schema. */
const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const DNS_LABEL = new RegExp(DNS_LABEL_PATTERN);
const DNS_LABEL_MAX_LENGTH = 63;

/** A message saying what is wrong with the name, or undefined when it is fine. */
export function validateName(name: string): string | undefined {
  if (!DNS_LABEL.test(name)) {
    return (
      `${quote(name)} is not a valid name; use lower-case letters, digits and "-", ` +
      'starting and ending with a letter or digit (a DNS label, like a Kubernetes container name)'
    );
  }
  if (name.length <= DNS_LABEL_MAX_LENGTH) return undefined;
  return `${quote(name)} is ${name.length} characters long; a name has at most ${DNS_LABEL_MAX_LENGTH} (a DNS label)`;
}

const EnvSchema = builtOnFirstUse(() =>
  z
    .record(
      z.string(),
      z.union([z.string(), z.number(), z.boolean()], {
        error: (issue) => (issue.input === null ? 'has no value; write "" for an empty string' : undefined),
      }),
    )
    // Every entry is checked, even when another has no value.
    .check(z.superRefine(checkEnv, { when: () => true }))
    // Numbers and booleans are accepted, as docker-compose users expect;
    // config-file.ts has already replaced them with their text as written, so
    // `VERSION: 1.10` stays "1.10" rather than becoming "1.1".
    .transform((env) => Object.fromEntries(Object.entries(env).map(([name, value]) => [name, String(value)]))),
);

function checkEnv(env: unknown, context: z.core.$RefinementCtx<unknown>): void {
  if (!isRecord(env)) return;
  for (const [name, value] of Object.entries(env)) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) continue;
    const message =
      name === '' || name.includes('=') || name.includes('\0')
        ? `${quote(name)} is not a variable name; a name is not empty and has no "=" in it`
        : String(value).includes('\0')
          ? 'the value contains a NUL character, which no environment can hold'
          : undefined;
    if (message !== undefined) context.addIssue({ code: 'custom', message, path: [name], input: value });
  }
}

function parseCwd(cwd: string) {
  if (cwd === '') return fail('is empty; leave cwd out to use the working directory of sidecar-init');
  return cwd.includes('\0') ? fail('has a NUL character, which no directory name can hold') : ok(cwd);
}

/**
 * Every field a process may have, each with the roles that have it (a field
 * of another role is refused as such: roles.ts); `user` and `group` resolve
 * names through `accounts`.
 */
const processFields = (accounts: Accounts) =>
  ({
    name: processField(ROLES, z.string().meta({ description: 'A DNS label, unique in the plan.', pattern: DNS_LABEL_PATTERN })),
    role: processField(
      ROLES,
      z.enum(ROLES).meta({
        description:
          'init runs to completion; sidecar keeps running and is started once ready; app is the main process; ' +
          'external is a process of another container of the pod, waited for and stopped, never started.',
      }),
    ),
    // Required for every role but external (ROLE_RULES, roles.ts).
    command: optionalField(STARTED, CommandSchema()),
    env: optionalField(STARTED, EnvSchema(), "Added to the supervisor's environment; numbers and booleans are taken as written."),
    cwd: optionalField(STARTED, parsedWith(z.string(), parseCwd), "Working directory; the supervisor's own when left out."),
    user: optionalField(STARTED, userField(accounts)),
    group: optionalField(STARTED, groupField(accounts)),
    after: optionalField(
      ROLES,
      z.array(z.string()),
      'Names this process waits for (an init step: exited 0; a sidecar: started). Once any process has after, ' +
        'each starts when its own list is satisfied, and the app after everything unless it has a list.',
    ),
    readiness: optionalField(['sidecar', 'external'], readinessField('optional'), READINESS_DESCRIPTION),
    liveness: optionalField(
      ['sidecar', 'app'],
      LivenessSchema(),
      'Sidecars and the app: stopped and restarted under its policy after failureThreshold failures in a row.',
    ),
    restart: optionalField(STARTED, RestartPolicySchema(), RESTART_DESCRIPTION),
    backoff: optionalField(STARTED, BackoffSchema(), 'Delays between restarts.'),
    maxRestarts: optionalField(STARTED, MaxRestartsSchema()),
    fatal: optionalField(['sidecar'], z.boolean(), {
      description: 'Sidecars only: its exit, or running out of maxRestarts, ends the pod with a failure.',
      default: DEFAULTS.fatal,
    }),
    postStart: optionalField(
      ['sidecar', 'app'],
      HookSchema(),
      'Sidecars and the app: runs right after spawn; the next process in the startup sequence waits for it.',
    ),
    preStop: optionalField(
      ['sidecar', 'app'],
      HookSchema(),
      'Sidecars and the app: runs when termination starts; the stop signal follows when it has finished.',
    ),
    stopSignal: optionalField(STARTED, stopSignalField('The signal that stops this process (default SIGTERM), e.g. SIGQUIT for nginx.')),
    grace: optionalField(STARTED, duration('How long this process alone is waited for after its stop signal, within the whole budget.')),
    signalGroup: optionalField(STARTED, z.boolean(), "Signal the child's whole process group (default), or only the child (false)."),
    successCodes: optionalField(
      ['app'],
      z.array(wholeNumber('An exit code.', EXIT_CODE_RANGE)),
      'The app only: exit codes that count as 0, e.g. 143 for a JVM stopped by SIGTERM.',
    ),
    output: optionalField(
      STARTED,
      oneOf('an output mode', OUTPUT_MODES),
      'inherit: its stdout and stderr are passed through untouched; prefix: each line as "NAME | LINE"; json: one JSON object per line.',
    ),
    ...EXTERNAL_FIELDS(),
  }) satisfies ProcessFieldRows;

/** A field of a process: what a per-process flag sets (target-flags.ts). */
export type ProcessFieldName = keyof ReturnType<typeof processFields>;

let fieldRows: ReturnType<typeof processFields> | undefined;

/** The roles that have `field`, from its row; the rows are built once, on the first question (their schemas' accounts do not matter here). */
export function rolesWith(field: ProcessFieldName): readonly Role[] {
  fieldRows ??= processFields(NO_ACCOUNTS);
  return fieldRows[field].roles;
}

/** A process's fields once checked, whatever its role (each role has some of them). */
type ProcessFieldValues = z.output<ReturnType<typeof createAnyRoleSchema>>;

/**
 * One entry of `processes:`, checked and with its defaults, as a draft of the
 * plan: one mapping per role, chosen by `role`, each with only the fields that
 * role has and the rules that role has (ROLE_RULES).
 */
export function createProcessSchema(accounts: Accounts) {
  const rows = processFields(accounts);
  const role = (name: Role) => roleSchema(name, rows);
  return z
    .discriminatedUnion('role', [role('init'), role('sidecar'), role('app'), role('external')], { error: roleIssue })
    .transform((values) => createDraft(values as ProcessFieldValues));
}

/** Every field of every role, all checked: for an entry whose role is missing or unknown, so its other problems are still found. */
export function createAnyRoleSchema(accounts: Accounts) {
  return mapping(schemasOf(processFields(accounts)));
}

/** A process with every default: an --init or --sidecar flag, or the app given as operands. */
export function createProcessDraft(name: string, role: Role, command: Argv): ProcessDraft {
  return createDraft({ name, role, command });
}

/** A process with its defaults, from fields that have passed their checks. */
function createDraft(fields: ProcessFieldValues): ProcessDraft {
  const { name, role, readiness, signalGroup } = fields;
  const external = role === 'external' ? createExternal(fields, readiness) : undefined;
  return {
    name,
    role,
    // An external is never run: its command is its name, for logs.
    command: fields.command ?? [name],
    env: fields.env ?? {},
    cwd: fields.cwd,
    user: combineUser(fields.user, fields.group),
    // A sidecar without a probe was reported by its role's rules (roles.ts); the plan is not built then.
    readiness: external?.readiness ?? (readiness?.probe === undefined ? undefined : { ...readiness, probe: readiness.probe }),
    liveness: fields.liveness,
    restart: createRestart(role, fields),
    fatal: fields.fatal ?? DEFAULTS.fatal,
    postStart: fields.postStart,
    preStop: fields.preStop,
    stopSignal: fields.stopSignal,
    graceMs: fields.grace,
    signalTarget: signalGroup === undefined ? undefined : signalGroup ? 'group' : 'process',
    successCodes: fields.successCodes ?? [],
    after: fields.after,
    output: fields.output,
    external: external?.external,
  };
}

/** name, role and after as far as they are readable, for the rules across entries even when the file has problems. */
const EntryKeys = builtOnFirstUse(() =>
  z
    .looseObject({
      name: z.string().optional().catch(undefined),
      role: z.enum(ROLES).optional().catch(undefined),
      after: z.array(z.string()).optional().catch(undefined),
    })
    .catch({}),
);

/**
 * processes[index] of the file as an Entry, for the rules across entries, and
 * the one rule across two fields the schema cannot see once they are parsed:
 * a group given both in `user` and in `group`. The draft comes from the
 * schema, once the whole file has passed.
 */
export function readFileEntry(raw: unknown, index: number, report: Report): Entry {
  const origin = fileOrigin('processes', index);
  const { name, role, after } = EntryKeys().parse(raw);
  const groupProblem = isRecord(raw) ? checkUserAndGroup(raw.user, raw.group) : undefined;
  if (groupProblem !== undefined) report(at(origin, 'group'), groupProblem);
  return { name, role, origin, after, draft: undefined };
}

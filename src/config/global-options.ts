import * as z from 'zod';
import { formatAddress } from '../support/format-address.ts';
import { ANNOUNCED_STATES } from '../plan/announced-state.ts';
import { defaultControlPath } from '../plan/control-socket.ts';
import { type ControlSocket, DEFAULTS, type DrainSpec, type HookSpec, type PlanOptions, type TerminationLog } from '../plan/plan.ts';
import { AnnounceSchema, UntilSchema } from './announce.ts';
import { duration, formatDuration, looksLikeDuration } from './duration.ts';
import { DrainSchema, describeHook } from './hook.ts';
import { LOG_FORMATS, LOG_LEVELS, OUTPUT_MODES } from '../plan/literals.ts';
import { listAlternatives, quote } from '../support/message-text.ts';
import { fail, ok, type Result } from '../support/result.ts';
import { ID_RANGE, oneOf, parsedWith, wholeNumber } from './schema-fields.ts';
import { parentDeathSignalField, parseRewriteFlags, RewriteSchema } from './signals.ts';
import { parseStatusAddress } from './status-address.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

// The options that are not about one named process, one row each, keyed by
// the plan's field (PlanOptions). Each is a top-level key of the config file
// (the plan's name without a duration's Ms: graceMs is grace), a flag
// (--grace) and a variable (SIDECAR_INIT_GRACE). A row holds the file key's
// field (its check, its description and default in the JSON Schema), the
// flag's help, the plan's value with its default, and what `plan` prints: the
// flag, the variable, --help, the schema, the plan and both forms of `plan`
// are derived from the rows, so a field of PlanOptions without one does not
// compile. The command line and the environment hand config the text as
// written; config checks it with the row's field and puts it over the file's.

/** How the flag and its variable are written. */
export type OptionForm =
  /** One value: --grace 10s, SIDECAR_INIT_GRACE=10s. */
  | 'value'
  /** Repeatable: --rewrite A --rewrite B, SIDECAR_INIT_REWRITE=A,B. */
  | 'list'
  /** No value: --single-child; SIDECAR_INIT_SINGLE_CHILD=true|false|1|0. */
  | 'switch';

export interface OptionSpec<Form extends OptionForm = OptionForm> {
  readonly form: Form;
  /** The flag's argument in --help, e.g. <duration>; none for a switch. */
  readonly argument?: string;
  readonly help: string;
  /** Set for an option that is a field of the app rather than a top-level key of the file (only --success-code). */
  readonly appField?: string;
}

/**
 * One option of PlanOptions: its flag and its file key's field, its plan
 * value, and how `plan` shows it. A list's row must say how its values become
 * the field's (fromList): without it, the values a flag gave would be lost.
 */
export type PlanOptionRow<Field extends z.ZodType, Value, Form extends OptionForm = OptionForm> = PlanOptionFields<Field, Value, Form> &
  (Form extends 'list' ? Required<Pick<PlanOptionFields<Field, Value, Form>, 'fromList'>> : unknown);

interface PlanOptionFields<Field extends z.ZodType, Value, Form extends OptionForm> extends OptionSpec<Form> {
  /** The file key's field; left out, the key is not given. */
  readonly field: Field;
  /** A flag's text as the file writes the value, when they differ (drain: a command where the file has {exec: CMD}). */
  fromText?(text: string): unknown;
  /** A list form's values, each its own origin: the value, and the index of each bad one (only rewrite). */
  fromList?(texts: readonly string[], problem: (index: number, message: string, first?: number) => void): z.output<Field>;
  /** The plan's value: the one given, or the default (DEFAULTS). */
  plan(value: z.output<Field>): Value;
  /** Its field in `plan --json` (plain JSON: null where the text has nothing to say). */
  json(value: Value): unknown;
  /** Its line in `plan`, or undefined when it has nothing to add (a default that goes without saying). */
  text(value: Value): string | undefined;
}

/** A row as the table writes it: its field as a function that builds it. */
type PlanOptionSource<Field extends z.ZodType, Value, Form extends OptionForm> = Omit<PlanOptionRow<Field, Value, Form>, 'field'> & {
  readonly field: () => Field;
};

/**
 * A row, its value type checked against its plan field (PLAN_OPTIONS'
 * satisfies), its field's type inferred. The field is built the first time it
 * is read, then kept: the CLI reads the rows for every start (flags, help,
 * variables), and a run checks only the options it was given, so `--version`
 * builds no option's schema and a run only those of its options.
 */
function option<Field extends z.ZodType, Value, Form extends OptionForm>(
  row: PlanOptionSource<Field, Value, Form>,
): PlanOptionRow<Field, Value, Form> {
  return Object.defineProperty({ ...row }, 'field', { get: builtOnFirstUse(row.field), enumerable: true }) as PlanOptionRow<
    Field,
    Value,
    Form
  >;
}

/** `--control none`: no control socket, not even the default one. */
const NO_CONTROL = 'none';
/** A Unix socket's path holds 107 bytes; the name the socket is bound under first takes up to 7 more than PATH. */
const MAX_CONTROL_PATH_BYTES = 100;

/**
 * --control PATH: absolute, because a relative one would depend on the
 * directory sidecar-init happened to start in, which `sidecar-init ctl` may
 * not share; and short enough for a Unix socket's address (108 bytes with its
 * NUL) with room to spare: the socket is first bound under a name beside it
 * that may be up to 7 bytes longer (control-server.ts).
 */
export function parseControlPath(text: string): Result<ControlSocket> {
  if (text === NO_CONTROL) return ok({ kind: 'none' });
  if (!text.startsWith('/')) return fail(`${quote(text)} is not an absolute path; give one, e.g. /run/sidecar-init.sock, or none`);
  if (text.includes('\0')) return fail('the path has a NUL character, which no file name can hold');
  if (text.endsWith('/')) return fail(`${quote(text)} names a directory; give the socket's own name, e.g. /run/sidecar-init.sock`);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_CONTROL_PATH_BYTES)
    return fail(
      `is ${bytes} bytes long; at most ${MAX_CONTROL_PATH_BYTES} (a Unix socket's path holds 107, and the socket is bound under a longer name first)`,
    );
  return ok({ kind: 'path', path: text });
}

/** Where the control socket will be: the default one's path is this uid's. */
function controlPath(control: ControlSocket): string | null {
  if (control.kind === 'none') return null;
  return control.kind === 'path' ? control.path : defaultControlPath(process.geteuid?.() ?? 0);
}

/** --termination-log: the termination message's file, given (a failure is a warning), or none. */
function parseTerminationLog(text: string): Result<TerminationLog> {
  if (text === 'none') return ok({ kind: 'none' });
  if (!text.startsWith('/'))
    return fail(`${quote(text)} is not an absolute path; use an absolute path, e.g. ${DEFAULTS.terminationLog}, or none`);
  return ok({ kind: 'file', path: text });
}

function drainJson(drain: DrainSpec) {
  return drain.kind === 'delay' ? { delayMs: drain.ms } : { hook: hookJson(drain.hook) };
}

/** A hook in `plan --json`: postStart, preStop and the drain's. */
export function hookJson(hook: HookSpec) {
  return { kind: hook.kind, describe: describeHook(hook), timeoutMs: hook.timeoutMs };
}

export const PLAN_OPTIONS = {
  graceMs: option({
    form: 'value',
    argument: '<duration>',
    help: `budget for stopping everything, e.g. 10s (default: ${formatDuration(DEFAULTS.graceMs)})`,
    field: () => duration('The whole budget from the stop signal (or the app exit) to the supervisor exit.', DEFAULTS.graceMs).optional(),
    plan: (ms) => ms ?? DEFAULTS.graceMs,
    json: (ms) => ms,
    text: (ms) => `grace budget: ${formatDuration(ms)}, from the first stop signal to exit`,
  }),
  logLevel: option({
    form: 'value',
    argument: '<level>',
    help: `${LOG_LEVELS.join(', ')} (default: ${DEFAULTS.logLevel})`,
    field: () =>
      oneOf('a log level', LOG_LEVELS, (words) => words.join(', '))
        .optional()
        .meta({ default: DEFAULTS.logLevel }),
    plan: (level) => level ?? DEFAULTS.logLevel,
    json: (level) => level,
    text: (level) => (level === DEFAULTS.logLevel ? undefined : `log level: ${level}`),
  }),
  logFormat: option({
    form: 'value',
    argument: '<format>',
    help: `${listAlternatives(LOG_FORMATS)} (default: text when stderr is a terminal, else json)`,
    field: () =>
      oneOf('a log format', LOG_FORMATS).optional().meta({
        description: "sidecar-init's own log: json lines, or text for people (default: text when stderr is a terminal, else json).",
      }),
    plan: (format) => format,
    json: (format) => format ?? null,
    text: (format) => (format === undefined ? undefined : `log format: ${format}`),
  }),
  statusAddr: option({
    form: 'value',
    argument: '<host:port>',
    help: 'serve /healthz, /readyz, /status and /metrics on HOST:PORT, e.g. :9797 (every interface, IPv4 and IPv6) or 127.0.0.1:9797 (default: no status server)',
    field: () =>
      parsedWith(z.string(), parseStatusAddress)
        .optional()
        .meta({
          description: 'HOST:PORT of the status server (/healthz, /readyz, /status, /metrics); no server when left out.',
          examples: [':9797', '127.0.0.1:9797', '[::1]:9797'],
        }),
    plan: (address) => address,
    json: (address) => (address === undefined ? null : formatAddress(address.host, address.port)),
    text: (address) =>
      address === undefined
        ? undefined
        : `status server: http://${formatAddress(address.host, address.port)} (/healthz, /readyz, /status, /metrics)`,
  }),
  terminationLog: option({
    form: 'value',
    argument: '<path|none>',
    help: `write the one-line reason for the exit to PATH, or none (default: ${DEFAULTS.terminationLog}, when it is there: Kubernetes shows it)`,
    field: () =>
      parsedWith(z.string(), parseTerminationLog)
        .optional()
        .meta({
          description:
            'Where the one-line reason for the exit is written (Kubernetes shows it as the termination message), or none; ' +
            `by default ${DEFAULTS.terminationLog}, when it is there.`,
          examples: [DEFAULTS.terminationLog, '/run/sidecar-init/termination', 'none'],
        }),
    // Kubernetes' path only when it is there: anything that fails is a debug line.
    plan: (log): TerminationLog => log ?? { kind: 'if-present', path: DEFAULTS.terminationLog },
    json: (log) => ({ kind: log.kind, path: log.kind === 'none' ? null : log.path }),
    text: (log) =>
      log.kind === 'if-present'
        ? undefined
        : `termination message: ${log.kind === 'none' ? 'none' : `${log.path} (a failure is a warning)`}`,
  }),
  control: option({
    form: 'value',
    argument: '<path>',
    help: 'the control socket for `sidecar-init ctl` at PATH, mode 0600, or none (default: /tmp/sidecar-init-UID/control.sock)',
    field: () =>
      parsedWith(z.string(), parseControlPath)
        .optional()
        .meta({
          description:
            "Path of the control socket for `sidecar-init ctl` (status, restart, stop, start, signal); mode 0600, for sidecar-init's own user and root; none for no socket. Left out: /tmp/sidecar-init-UID/control.sock, where ctl looks without --control.",
          examples: ['/run/sidecar-init.sock', 'none'],
        }),
    // Left out: the default socket, whose path depends on the uid, known only when it runs.
    plan: (control): ControlSocket => control ?? { kind: 'default' },
    json: controlPath,
    text: (control) => {
      const path = controlPath(control);
      if (path === null) return undefined;
      // The default socket is where ctl looks without --control.
      const ctl = path === defaultControlPath(process.geteuid?.() ?? 0) ? '' : ` --control ${path}`;
      return `control socket: ${path} (sidecar-init ctl${ctl} status)`;
    },
  }),
  announce: option({
    form: 'value',
    argument: '<file>',
    help: "keep this run's state (starting, ready, stopping, exited) in FILE, for other containers' --until and announced:FILE",
    field: () =>
      AnnounceSchema()
        .optional()
        .meta({
          description:
            'A file on a volume shared with other containers where this run keeps its state (starting, ready, stopping, exited), ' +
            'written atomically; relative to the directory sidecar-init starts in.',
          examples: ['/handoff/app'],
        }),
    plan: (file) => file,
    json: (file) => file ?? null,
    text: (file) => (file === undefined ? undefined : `announce: ${file} keeps this run's state (starting, ready, stopping, exited)`),
  }),
  until: option({
    form: 'value',
    argument: '<file[=state]>',
    help: `run until another container's --announce FILE says STATE (${ANNOUNCED_STATES.join(', ')}; default: ${DEFAULTS.untilState}), then stop as if the app exited 0`,
    field: () =>
      UntilSchema()
        .optional()
        .meta({
          description:
            `Run until another container's announce file says STATE (default ${DEFAULTS.untilState}) or a later one, ` +
            'then stop as if the app had exited 0: FILE, FILE=STATE or {file, state}.',
        }),
    plan: (until) => until,
    json: (until) => (until === undefined ? null : { file: until.file, state: until.state }),
    text: (until) =>
      until === undefined ? undefined : `until: ${until.file} says ${until.state} (or later), then stops as if the app exited 0`,
  }),
  announcerUid: option({
    form: 'value',
    argument: '<uid>',
    help: "the uid that writes the other containers' files this run reads (--until, announced:FILE); a file owned by another uid, or writable by others, is ignored (default: sidecar-init's own uid)",
    field: () =>
      wholeNumber(
        "The uid that writes the other containers' announce files this run reads (--until, announced: FILE): " +
          'what a file says counts only when that uid owns it and neither group nor others may write it ' +
          "(default: sidecar-init's own uid).",
        ID_RANGE,
      ).optional(),
    // A uid is a number in the file; from a flag, digits become one and anything else is refused by the field as not a number.
    fromText: (text) => (/^-?\d+$/.test(text) ? Number(text) : text),
    plan: (uid) => uid,
    json: (uid) => uid ?? null,
    text: (uid) => (uid === undefined ? undefined : `announce files read: only those uid ${uid} owns and no one else may write`),
  }),
  output: option({
    form: 'value',
    argument: '<mode>',
    help: `how the output of processes without their own output setting is written: ${listAlternatives(OUTPUT_MODES)} (default: ${DEFAULTS.output})`,
    field: () =>
      oneOf('an output mode', OUTPUT_MODES).optional().meta({
        description: 'How the output of processes without their own output setting is written: inherit, prefix (NAME | LINE) or json.',
        default: DEFAULTS.output,
      }),
    plan: (mode) => mode ?? DEFAULTS.output,
    json: (mode) => mode,
    // Each process's own line says its mode.
    text: () => undefined,
  }),
  drain: option({
    form: 'value',
    argument: '<duration|cmd>',
    help: 'first on termination, before any stop signal: wait DURATION, or run CMD',
    field: () =>
      DrainSchema().optional().meta({
        description: 'Runs first on termination, before any stop signal: a delay (5s) or a hook ({exec} or {http}).',
      }),
    fromText: (text) => (looksLikeDuration(text) ? text : { exec: text }),
    plan: (drain) => drain,
    json: (drain) => (drain === undefined ? null : drainJson(drain)),
    text: (drain) =>
      drain === undefined
        ? undefined
        : `drain: ${drain.kind === 'delay' ? `wait ${formatDuration(drain.ms)}` : `${describeHook(drain.hook)}, timeout ${formatDuration(drain.hook.timeoutMs)}`}`,
  }),
  rewrite: option({
    form: 'list',
    argument: '<sig:sig|none>',
    help: 'rewrite a signal before the app gets it, or drop it, e.g. SIGTERM:SIGQUIT or 15:3 (repeatable)',
    field: () => RewriteSchema(),
    fromList: parseRewriteFlags,
    plan: (rewrites) => rewrites ?? {},
    json: (rewrites) => ({ ...rewrites }),
    text: (rewrites) => {
      const pairs = Object.entries(rewrites);
      return pairs.length === 0 ? undefined : `signal rewrites: ${pairs.map(([from, to]) => `${from} -> ${to ?? 'dropped'}`).join(', ')}`;
    },
  }),
  singleChild: option({
    form: 'switch',
    help: 'signal each process alone, not its whole process group',
    field: () =>
      z.boolean().optional().meta({
        description: 'Signal only each direct child, not its process group, unless a process sets signalGroup.',
        default: false,
      }),
    plan: (single) => single ?? false,
    json: (single) => single,
    // Each process's stop line says where its signal goes.
    text: () => undefined,
  }),
  parentDeathSignal: option({
    form: 'value',
    argument: '<signal>',
    help: 'have the kernel send sidecar-init SIGNAL when its parent exits, e.g. SIGTERM (tini -p; not as PID 1, which has no parent)',
    field: () =>
      parentDeathSignalField(
        'The signal sidecar-init gets when its parent process exits (prctl PR_SET_PDEATHSIG, as tini -p), handled as if sent to it: ' +
          'SIGTERM tears everything down. For sidecar-init started by a parent that may die first (docker exec, a wrapper script); ' +
          'nothing as PID 1. Left out: none.',
      ).optional(),
    plan: (signal) => signal,
    json: (signal) => signal ?? null,
    text: (signal) => (signal === undefined ? undefined : `parent death signal: ${signal} when the parent exits (not as PID 1)`),
  }),
} satisfies { readonly [Key in keyof PlanOptions]: PlanOptionRow<z.ZodType, PlanOptions[Key]> };

type PlanOption = keyof typeof PLAN_OPTIONS;

/** The file key of a plan field: its name, without the unit of a duration (graceMs: grace). */
type FileKeyOf<Key extends PlanOption> = Key extends `${infer Base}Ms` ? Base : Key;

/** The options that are top-level keys of the file. */
export type FileOption = FileKeyOf<PlanOption>;

/** The plan field of a file key: grace's is graceMs. */
type PlanKeyOf<Option extends FileOption> = Option extends PlanOption ? Option : `${Option}Ms` & PlanOption;

/** The row of a file key. */
export type FileOptionRow<Option extends FileOption> = (typeof PLAN_OPTIONS)[PlanKeyOf<Option>];

const PLAN_OPTION_NAMES = Object.keys(PLAN_OPTIONS) as PlanOption[];

function fileKeyOf(key: PlanOption): FileOption {
  return key.replace(/Ms$/, '') as FileOption;
}

/** The file's top-level keys, each with its row, in the table's order. */
export const FILE_OPTIONS = Object.fromEntries(PLAN_OPTION_NAMES.map((key) => [fileKeyOf(key), PLAN_OPTIONS[key]])) as {
  readonly [Option in FileOption]: FileOptionRow<Option>;
};

export const FILE_OPTION_NAMES = PLAN_OPTION_NAMES.map(fileKeyOf);

/** Every option of the command line and the environment: the file's keys, and --success-code, a field of the app. */
export const GLOBAL_OPTIONS = {
  ...FILE_OPTIONS,
  successCode: {
    form: 'list',
    argument: '<n>',
    help: 'an exit code of the app that counts as 0, e.g. 143 (repeatable)',
    appField: 'successCodes',
  },
} as const satisfies Readonly<Record<string, OptionSpec>>;

export type GlobalOption = keyof typeof GLOBAL_OPTIONS;

export const GLOBAL_OPTION_NAMES = Object.keys(GLOBAL_OPTIONS) as GlobalOption[];

/** The options' values as checked by their fields; a missing key was not given. */
export type GlobalValues = { -readonly [Option in FileOption]?: z.output<FileOptionRow<Option>['field']> };

/** Flags (and variables) over the file, option by option; --rewrite over the file's rewrite signal by signal. */
export function mergeGlobals(file: GlobalValues, flags: GlobalValues): GlobalValues {
  return { ...file, ...flags, rewrite: { ...file.rewrite, ...flags.rewrite } };
}

/**
 * Each row's plan value: the one given, or its default. Built key by key, so
 * one cast says what PLAN_OPTIONS' `satisfies` proves: each row's value is its
 * plan field's type.
 */
export function createPlanOptions(values: GlobalValues): PlanOptions {
  const options: Partial<Record<PlanOption, unknown>> = {};
  for (const key of PLAN_OPTION_NAMES) options[key] = optionRow(key).plan(values[fileKeyOf(key)]);
  return options as PlanOptions;
}

/** What `plan --json` prints of the options, keyed as the plan is. */
export type PlanOptionsView = { readonly [Key in PlanOption]: ReturnType<(typeof PLAN_OPTIONS)[Key]['json']> };

export function planOptionsView(options: PlanOptions): PlanOptionsView {
  return Object.fromEntries(PLAN_OPTION_NAMES.map((key) => [key, optionRow(key).json(options[key])])) as PlanOptionsView;
}

/** The lines `plan` prints of the options, in the table's order. */
export function planOptionLines(options: PlanOptions): string[] {
  return PLAN_OPTION_NAMES.flatMap((key) => optionRow(key).text(options[key]) ?? []);
}

/** A row as the loops above use it: its value as unknown, which is all they pass on. */
function optionRow(key: PlanOption): PlanOptionRow<z.ZodType, unknown> {
  return PLAN_OPTIONS[key];
}

/** --grace for grace, --log-level for logLevel. */
export function optionFlag(option: GlobalOption): string {
  return `--${option.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

export const ENV_PREFIX = 'SIDECAR_INIT_';

/** SIDECAR_INIT_GRACE for grace, SIDECAR_INIT_LOG_LEVEL for logLevel. */
export function optionVariable(option: GlobalOption): string {
  return `${ENV_PREFIX}${optionFlag(option).slice(2).replaceAll('-', '_').toUpperCase()}`;
}

/** What one option's flag or variable gave, as written. */
export type GivenValue<Form extends OptionForm> = Form extends 'list' ? readonly string[] : Form extends 'switch' ? boolean : string;

/** The options given on the command line or in the environment; a missing key was not given. */
export type GivenOptions = { readonly [Option in GlobalOption]?: GivenValue<(typeof GLOBAL_OPTIONS)[Option]['form']> };

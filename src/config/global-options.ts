import { ANNOUNCED_STATES } from '../plan/announced-state.ts';
import { DEFAULT_UNTIL_STATE } from './announce.ts';
import { formatDuration } from './duration.ts';
import { LOG_FORMATS, LOG_LEVELS, OUTPUT_MODES } from './literals.ts';
import { DEFAULT_GRACE_MS, DEFAULT_LOG_LEVEL } from '../plan/plan.ts';
import { listAlternatives } from './message-text.ts';
import { DEFAULT_TERMINATION_LOG } from './termination-log.ts';

// The options that are not about one named process, declared once. Each is a
// top-level key of the config file (its type, check and default are its field
// in schema.ts), a flag (derived here: --grace for grace) and a variable
// (SIDECAR_INIT_GRACE); --success-code is the one that sets a field of the
// app instead. The command line and the environment hand config the
// text as written; config checks it with the file's own field schema and puts
// it over the file's value.

/** How the flag and its variable are written. */
export type OptionForm =
  /** One value: --grace 10s, SIDECAR_INIT_GRACE=10s. */
  | 'value'
  /** Repeatable: --rewrite A --rewrite B, SIDECAR_INIT_REWRITE=A,B. */
  | 'list'
  /** No value: --single-child; SIDECAR_INIT_SINGLE_CHILD=true|false|1|0. */
  | 'switch';

export interface OptionSpec {
  readonly form: OptionForm;
  /** The flag's argument in --help, e.g. <duration>; none for a switch. */
  readonly argument?: string;
  readonly help: string;
  /** Set for an option that is a field of the app rather than a top-level key of the file (only --success-code). */
  readonly appField?: string;
}

export const GLOBAL_OPTIONS = {
  grace: {
    form: 'value',
    argument: '<duration>',
    help: `budget for stopping everything, e.g. 10s (default: ${formatDuration(DEFAULT_GRACE_MS)})`,
  },
  logLevel: { form: 'value', argument: '<level>', help: `${LOG_LEVELS.join(', ')} (default: ${DEFAULT_LOG_LEVEL})` },
  logFormat: {
    form: 'value',
    argument: '<format>',
    help: `${listAlternatives(LOG_FORMATS)} (default: text when stderr is a terminal, else json)`,
  },
  statusAddr: {
    form: 'value',
    argument: '<host:port>',
    help: 'serve /healthz, /readyz, /status and /metrics on HOST:PORT, e.g. :9797 (every interface, IPv4 and IPv6) or 127.0.0.1:9797 (default: no status server)',
  },
  terminationLog: {
    form: 'value',
    argument: '<path|none>',
    help: `write the one-line reason for the exit to PATH, or none (default: ${DEFAULT_TERMINATION_LOG}, when it is there: Kubernetes shows it)`,
  },
  control: {
    form: 'value',
    argument: '<path>',
    help: 'the control socket for `sidecar-init ctl` at PATH, mode 0600, or none (default: /tmp/sidecar-init-UID/control.sock)',
  },
  announce: {
    form: 'value',
    argument: '<file>',
    help: "keep this run's state (starting, ready, stopping, exited) in FILE, for other containers' --until and announced:FILE",
  },
  until: {
    form: 'value',
    argument: '<file[=state]>',
    help: `run until another container's --announce FILE says STATE (${ANNOUNCED_STATES.join(', ')}; default: ${DEFAULT_UNTIL_STATE}), then stop as if the app exited 0`,
  },
  announcerUid: {
    form: 'value',
    argument: '<uid>',
    help: "the uid that writes the other containers' files this run reads (--until, announced:FILE); a file owned by another uid, or writable by others, is ignored (default: sidecar-init's own uid)",
  },
  output: {
    form: 'value',
    argument: '<mode>',
    help: `how the output of processes without their own output setting is written: ${listAlternatives(OUTPUT_MODES)} (default: inherit)`,
  },
  drain: {
    form: 'value',
    argument: '<duration|cmd>',
    help: 'first on termination, before any stop signal: wait DURATION, or run CMD',
  },
  rewrite: {
    form: 'list',
    argument: '<sig:sig|none>',
    help: 'rewrite a signal before the app gets it, or drop it, e.g. SIGTERM:SIGQUIT (repeatable)',
  },
  singleChild: { form: 'switch', help: 'signal each process alone, not its whole process group' },
  successCode: {
    form: 'list',
    argument: '<n>',
    help: 'an exit code of the app that counts as 0, e.g. 143 (repeatable)',
    appField: 'successCodes',
  },
} as const satisfies Readonly<Record<string, OptionSpec>>;

export type GlobalOption = keyof typeof GLOBAL_OPTIONS;

/** The options that are top-level keys of the file; schema.ts has a field for each. */
export type FileOption = {
  [Option in GlobalOption]: (typeof GLOBAL_OPTIONS)[Option] extends { appField: string } ? never : Option;
}[GlobalOption];

export const GLOBAL_OPTION_NAMES = Object.keys(GLOBAL_OPTIONS) as GlobalOption[];

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

// What the command line contributes to the plan, as written: the CLI layer only
// collects values, and config checks them with the same rules as the file, so
// flag and file problems are reported together.

export interface ProcessFlag {
  readonly flag: '--init' | '--sidecar' | '--external';
  /** NAME=CMD (an --external: NAME=SPEC), unparsed. */
  readonly value: string;
}

/** The options that are not about one named process: each can also come from SIDECAR_INIT_<OPTION>. */
export type GlobalOption =
  | 'grace'
  | 'drain'
  | 'rewrite'
  | 'singleChild'
  | 'successCode'
  | 'logLevel'
  | 'logFormat'
  | 'statusAddr'
  | 'terminationLog'
  | 'control'
  | 'output';

export const GLOBAL_OPTION_FLAGS: Readonly<Record<GlobalOption, string>> = {
  grace: '--grace',
  drain: '--drain',
  rewrite: '--rewrite',
  singleChild: '--single-child',
  successCode: '--success-code',
  logLevel: '--log-level',
  logFormat: '--log-format',
  statusAddr: '--status-addr',
  terminationLog: '--termination-log',
  control: '--control',
  output: '--output',
};

export interface CliInput {
  /** Every --init, --sidecar and --external in command-line order, interleaved as written. */
  readonly processes: readonly ProcessFlag[];
  /** Every --ready value (NAME=PROBE), unparsed, in command-line order. */
  readonly ready: readonly string[];
  /** Every --quit value (NAME=URL), unparsed, in command-line order. */
  readonly quit: readonly string[];
  /** Every --restart value (NAME=POLICY), unparsed, in command-line order. */
  readonly restart: readonly string[];
  /** Every --stop-signal value (NAME=SIGNAL), unparsed, in command-line order. */
  readonly stopSignal: readonly string[];
  /** Every --user value (NAME=USER[:GROUP]), unparsed, in command-line order. */
  readonly user: readonly string[];
  /** Every --success-code value, unparsed, in command-line order. */
  readonly successCode: readonly string[];
  /** Every --rewrite value (FROM:TO), unparsed, in command-line order. */
  readonly rewrite: readonly string[];
  /** --drain DURATION|CMD. */
  readonly drain: string | undefined;
  /** true: --single-child was given; false: SIDECAR_INIT_SINGLE_CHILD=false; undefined: neither, the file decides. */
  readonly singleChild: boolean | undefined;
  readonly grace: string | undefined;
  readonly logLevel: string | undefined;
  readonly logFormat: string | undefined;
  readonly statusAddr: string | undefined;
  readonly terminationLog: string | undefined;
  /** --control PATH: the control socket. */
  readonly control: string | undefined;
  /** --output MODE: the default for processes without their own. */
  readonly output: string | undefined;
  /**
   * Options whose value came from an environment variable rather than their
   * flag: the variable's name, so a problem names where the value was written.
   */
  readonly sources: Readonly<Partial<Record<GlobalOption, string>>>;
  /** The app and its arguments (the operands); empty when none was given. */
  readonly app: readonly string[];
}

export const EMPTY_CLI_INPUT: CliInput = {
  processes: [],
  ready: [],
  quit: [],
  restart: [],
  stopSignal: [],
  user: [],
  successCode: [],
  rewrite: [],
  drain: undefined,
  singleChild: undefined,
  grace: undefined,
  logLevel: undefined,
  logFormat: undefined,
  statusAddr: undefined,
  terminationLog: undefined,
  control: undefined,
  output: undefined,
  sources: {},
  app: [],
};

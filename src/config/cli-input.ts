import type { GivenOptions, GlobalOption } from './global-options.ts';

// What the command line contributes to the plan, as written: the CLI layer only
// collects values, and config checks them with the same rules as the file, so
// flag and file problems are reported together.

export interface ProcessFlag {
  readonly flag: '--init' | '--sidecar' | '--external';
  /** NAME=CMD (an --external: NAME=SPEC), unparsed. */
  readonly value: string;
}

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
  /** The options of global-options.ts that were given, as written (a flag, else its variable). */
  readonly options: GivenOptions;
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
  options: {},
  sources: {},
  app: [],
};

// What the command line contributes to the plan, as written: the CLI layer only
// collects values, and config checks them with the same rules as the file, so
// flag and file problems are reported together.

export interface ProcessFlag {
  readonly flag: '--init' | '--sidecar';
  /** NAME=CMD, unparsed. */
  readonly value: string;
}

export interface CliInput {
  /** Every --init and --sidecar in command-line order, interleaved as written. */
  readonly processes: readonly ProcessFlag[];
  /** Every --ready value (NAME=PROBE), unparsed, in command-line order. */
  readonly ready: readonly string[];
  readonly grace: string | undefined;
  readonly logLevel: string | undefined;
  /** The app and its arguments (the operands); empty when none was given. */
  readonly app: readonly string[];
}

export const EMPTY_CLI_INPUT: CliInput = { processes: [], ready: [], grace: undefined, logLevel: undefined, app: [] };

import type { GivenOptions, GlobalOption } from './global-options.ts';
import { createTargetFlagTexts, type TargetFlagTexts } from './target-flags.ts';

// What the command line contributes to the plan, as written: the CLI layer only
// collects values, and config checks them with the same rules as the file, so
// flag and file problems are reported together.

export interface ProcessFlag {
  readonly flag: '--init' | '--sidecar' | '--external';
  /** NAME=CMD (an --external: NAME=SPEC), unparsed. */
  readonly value: string;
}

/** Each of target-flags.ts's rows (ready, quit, restart, stopSignal, user): its values, unparsed, in command-line order. */
export interface CliInput extends TargetFlagTexts {
  /** Every --init, --sidecar and --external in command-line order, interleaved as written. */
  readonly processes: readonly ProcessFlag[];
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
  ...createTargetFlagTexts(),
  options: {},
  sources: {},
  app: [],
};

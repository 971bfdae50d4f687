import type { Accounts } from './user.ts';
import { type Argv, parseCommand } from './command.ts';
import { parseExternalSpec } from './external.ts';
import type * as z from 'zod';
import {
  FILE_OPTIONS,
  type FileOption,
  type GivenOptions,
  type GlobalOption,
  type GlobalValues,
  optionFlag,
  type PlanOptionRow,
} from './global-options.ts';
import type { Role } from '../plan/plan.ts';
import { createProcessSchema, type Entry } from './process.ts';
import { type Origin, type Report, valueOrReport } from './config-error.ts';
import { ok, type Result } from '../support/result.ts';
import { createTargetFlagTexts, parseTargetFlags, splitAssignment, type TargetFlags, type TargetFlagTexts } from './target-flags.ts';
import { describeIssue, EXIT_CODE_RANGE, parseWholeNumber, reportIssues } from './schema-fields.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

type ProcessSchema = ReturnType<typeof createProcessSchema>;

// The command line's values, checked with the same parsers as the file's
// fields, so flag and file problems are reported together.

/** The app given as operands; `command` is undefined when it has problems. */
export interface AppArgs {
  readonly command: Argv | undefined;
  readonly origin: Origin;
}

/** What the command line contributes; undefined fields were not given (or had problems, already reported). */
export interface FlagConfig {
  /** The global options given, as plan values. */
  readonly globals: GlobalValues;
  /** --init and --sidecar entries in command-line order. */
  readonly entries: readonly Entry[];
  /** Each row of target-flags.ts: its flags in command-line order. */
  readonly targets: TargetFlags;
  /** --success-code values, for the app; undefined when none was given. */
  readonly successCodes: readonly number[] | undefined;
  readonly app: AppArgs | undefined;
}

export function parseFlags(cli: CliInput, accounts: Accounts, report: Report): FlagConfig {
  // A value from SIDECAR_INIT_<OPTION> is reported under the variable's name.
  const originOf =
    (option: GlobalOption) =>
    (value: string): Origin => ({
      kind: 'flag',
      flag: cli.sources[option] ?? optionFlag(option),
      value,
    });
  const { successCode, ...options } = cli.options;
  // Built for the first --init, --sidecar or --external only: a plain run has none.
  const processSchema = builtOnFirstUse(() => createProcessSchema(accounts));
  return {
    globals: readGlobalOptions(options, originOf, report),
    entries: cli.processes.map((process) => parseProcessFlag(process, processSchema, report)),
    targets: parseTargetFlags(cli, accounts, report),
    successCodes:
      successCode === undefined || successCode.length === 0
        ? undefined
        : successCode.flatMap(
            (value) => valueOrReport(parseWholeNumber(value, EXIT_CODE_RANGE), originOf('successCode')(value), report) ?? [],
          ),
    app: cli.app.length === 0 ? undefined : parseAppArgs(cli.app, report),
  };
}

type OriginOf = (option: GlobalOption) => (value: string) => Origin;

/** Each option given, checked by the file's own field for it (its row's, global-options.ts); problems at the flag or variable that gave it. */
function readGlobalOptions(options: Omit<GivenOptions, 'successCode'>, originOf: OriginOf, report: Report): GlobalValues {
  const values: Record<string, unknown> = {};
  for (const [option, given] of Object.entries(options) as [FileOption, string | boolean | readonly string[]][]) {
    const origin = originOf(option);
    const row: PlanOptionRow<z.ZodType, unknown> = FILE_OPTIONS[option];
    if (typeof given === 'object') {
      // A list's values are each their own origin: a problem names the one that has it.
      values[option] = row.fromList?.(given, (index, message, first) =>
        report(origin(given[index] ?? ''), message, first === undefined ? undefined : origin(given[first] ?? '')),
      );
      continue;
    }
    const raw = typeof given === 'string' ? (row.fromText?.(given) ?? given) : given;
    const result = row.field.safeParse(raw, { error: describeIssue });
    if (result.success) values[option] = result.data;
    else reportIssues(result.error.issues, report, () => origin(String(given)));
  }
  return values as GlobalValues;
}

/** --init, --sidecar and --external: NAME=VALUE, where VALUE gives the fields of a process of the file. */
const PROCESS_FLAGS: Readonly<Record<ProcessFlag['flag'], { role: Role; expected: string; fields: (text: string) => Result<object> }>> = {
  '--init': { role: 'init', expected: 'NAME=CMD, e.g. --init migrate="./migrate up"', fields: (command) => ok({ command }) },
  '--sidecar': {
    role: 'sidecar',
    expected: 'NAME=CMD, e.g. --sidecar proxy="envoy -c /etc/envoy.yaml"',
    fields: (command) => ok({ command }),
  },
  '--external': {
    role: 'external',
    expected: 'NAME=SPEC, e.g. --external mesh=istio or --external proxy=comm:envoy',
    fields: parseExternalSpec,
  },
};

/** The process a flag adds, as the file would write it, checked by the file's own schema; its problems at the flag. */
function parseProcessFlag({ flag, value }: ProcessFlag, processSchema: () => ProcessSchema, report: Report): Entry {
  const { role, expected, fields } = PROCESS_FLAGS[flag];
  const origin: Origin = { kind: 'flag', flag, value };
  const assignment = splitAssignment(value);
  if (assignment === undefined) report(origin, `expected ${expected}`);
  const [name, text] = assignment ?? [undefined, ''];
  const written = name === undefined ? undefined : valueOrReport(fields(text), origin, report);
  const result = written === undefined ? undefined : processSchema().safeParse({ name, role, ...written }, { error: describeIssue });
  if (result?.success === false) reportIssues(result.error.issues, report, () => origin);
  return { name, role, origin, after: undefined, draft: result?.data };
}

function parseAppArgs(args: readonly string[], report: Report): AppArgs {
  const origin: Origin = { kind: 'app-args', args };
  return { command: valueOrReport(parseCommand(args), origin, report), origin };
}

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

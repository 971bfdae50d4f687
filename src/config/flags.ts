import type { Accounts } from './accounts.ts';
import type { CliInput, ProcessFlag } from './cli-input.ts';
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
import { type Origin, type Report, valueOrReport } from './problem.ts';
import { ok, type Result } from './result.ts';
import { describeIssue, reportIssues } from './schema-fields.ts';
import { TARGET_FLAG_NAMES, TARGET_FLAGS, type TargetFlagName, type TargetFlagRow, type TargetFlagValue } from './target-flags.ts';
import { EXIT_CODE_RANGE, parseWholeNumber } from './whole-number.ts';

type ProcessSchema = ReturnType<typeof createProcessSchema>;

// The command line's values, checked with the same parsers as the file's
// fields, so flag and file problems are reported together.

/** The app given as operands; `command` is undefined when it has problems. */
export interface AppArgs {
  readonly command: Argv | undefined;
  readonly origin: Origin;
}

/** A flag that sets one field of a named process (target-flags.ts). */
export interface TargetFlag {
  readonly flag: string;
  readonly name: string;
  readonly origin: Origin;
  /** Undefined when the value has problems, already reported. */
  readonly value: TargetFlagValue | undefined;
}

/** What the command line contributes; undefined fields were not given (or had problems, already reported). */
export interface FlagConfig {
  /** The global options given, as plan values. */
  readonly globals: GlobalValues;
  /** --init and --sidecar entries in command-line order. */
  readonly entries: readonly Entry[];
  /** Each row of target-flags.ts: its flags in command-line order. */
  readonly targets: { readonly [Name in TargetFlagName]: readonly TargetFlag[] };
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
  const processSchema = createProcessSchema(accounts);
  return {
    globals: readGlobalOptions(options, originOf, report),
    entries: cli.processes.map((process) => parseProcessFlag(process, processSchema, report)),
    targets: Object.fromEntries(
      TARGET_FLAG_NAMES.map((name) => [name, parseTargetFlags(cli[name], TARGET_FLAGS[name], accounts, report)]),
    ) as unknown as FlagConfig['targets'],
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

function parseTargetFlags(values: readonly string[], row: TargetFlagRow, accounts: Accounts, report: Report): TargetFlag[] {
  return values.flatMap((text) => {
    const origin: Origin = { kind: 'flag', flag: row.flag, value: text };
    const assignment = splitAssignment(text);
    if (assignment === undefined) {
      report(origin, `expected ${row.expected}`);
      return [];
    }
    const [name, valueText] = assignment;
    return [{ flag: row.flag, name, origin, value: valueOrReport(row.parse(valueText, accounts), origin, report) }];
  });
}

/** NAME=VALUE split at the first "=", so the value may hold more. */
function splitAssignment(text: string): [string, string] | undefined {
  const index = text.indexOf('=');
  return index < 0 ? undefined : [text.slice(0, index), text.slice(index + 1)];
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
function parseProcessFlag({ flag, value }: ProcessFlag, processSchema: ProcessSchema, report: Report): Entry {
  const { role, expected, fields } = PROCESS_FLAGS[flag];
  const origin: Origin = { kind: 'flag', flag, value };
  const assignment = splitAssignment(value);
  if (assignment === undefined) report(origin, `expected ${expected}`);
  const [name, text] = assignment ?? [undefined, ''];
  const written = name === undefined ? undefined : valueOrReport(fields(text), origin, report);
  const result = written === undefined ? undefined : processSchema.safeParse({ name, role, ...written }, { error: describeIssue });
  if (result?.success === false) reportIssues(result.error.issues, report, () => origin);
  return { name, role, origin, after: undefined, draft: result?.data };
}

function parseAppArgs(args: readonly string[], report: Report): AppArgs {
  const origin: Origin = { kind: 'app-args', args };
  return { command: valueOrReport(parseCommand(args), origin, report), origin };
}

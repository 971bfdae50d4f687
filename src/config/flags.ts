import type { Accounts } from './accounts.ts';
import type { CliInput, ProcessFlag } from './cli-input.ts';
import { type Argv, parseCommand } from './command.ts';
import { looksLikeDuration } from './duration.ts';
import { parseExternalSpec, parseQuitUrl } from './external.ts';
import { type FileOption, type GivenOptions, type GlobalOption, optionFlag } from './global-options.ts';
import type { ProbeSpec, ProcessUser, RestartPolicy, Role } from '../plan/plan.ts';
import { parseProbe } from './probe.ts';
import { createProcessSchema, type Entry } from './process.ts';
import { type Origin, type Report, valueOrReport } from './problem.ts';
import { parseRestartPolicy } from './restart.ts';
import { ok, type Result } from './result.ts';
import { GLOBAL_FIELDS, type GlobalValues } from './schema.ts';
import { describeIssue, reportIssues } from './schema-fields.ts';
import { parseRewriteFlags, parseStopSignal } from './signals.ts';
import { parseUser } from './user.ts';
import { EXIT_CODE_RANGE, parseWholeNumber } from './whole-number.ts';

type ProcessSchema = ReturnType<typeof createProcessSchema>;

// The command line's values, checked with the same parsers as the file's
// fields, so flag and file problems are reported together.

/** The app given as operands; `command` is undefined when it has problems. */
export interface AppArgs {
  readonly command: Argv | undefined;
  readonly origin: Origin;
}

/** A flag that sets one field of a named process: --ready NAME=PROBE, --restart NAME=POLICY, --stop-signal NAME=SIGNAL, --user NAME=USER. */
export interface TargetFlag<Value> {
  readonly flag: string;
  readonly name: string;
  /** Undefined when the value has problems, already reported. */
  readonly value: Value | undefined;
  readonly origin: Origin;
}

/** What the command line contributes; undefined fields were not given (or had problems, already reported). */
export interface FlagConfig {
  /** The global options given, as plan values. */
  readonly globals: GlobalValues;
  /** --init and --sidecar entries in command-line order. */
  readonly entries: readonly Entry[];
  readonly ready: readonly TargetFlag<ProbeSpec>[];
  /** --quit NAME=URL: an external's stop endpoint. */
  readonly quit: readonly TargetFlag<string>[];
  readonly restart: readonly TargetFlag<RestartPolicy>[];
  readonly stopSignal: readonly TargetFlag<NodeJS.Signals>[];
  readonly user: readonly TargetFlag<ProcessUser>[];
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
    ready: parseTargetFlags(cli.ready, READY, report),
    quit: parseTargetFlags(cli.quit, QUIT, report),
    restart: parseTargetFlags(cli.restart, RESTART, report),
    stopSignal: parseTargetFlags(cli.stopSignal, STOP_SIGNAL, report),
    user: parseTargetFlags(cli.user, { ...USER, parse: (text) => parseUser(text, accounts) }, report),
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

/**
 * The options whose flag is written differently from their file key: --drain
 * takes a command where the file takes {exec: CMD}; --rewrite is repeated
 * FROM:TO where the file has a mapping, and each value is its own origin;
 * --announcer-uid is text where the file has a number.
 */
const FLAG_READERS: { readonly [Option in FileOption]?: (given: string) => unknown } = {
  drain: (text) => (looksLikeDuration(text) ? text : { exec: text }),
  // A uid is a number in the file; from a flag, digits become one and anything else is refused by the field as not a number.
  announcerUid: (text) => (/^-?\d+$/.test(text) ? Number(text) : text),
};

/** Each option given, checked by the file's own field for it (schema.ts); problems at the flag or variable that gave it. */
function readGlobalOptions(options: Omit<GivenOptions, 'successCode'>, originOf: OriginOf, report: Report): GlobalValues {
  const values: Record<string, unknown> = {};
  for (const [option, given] of Object.entries(options) as [FileOption, string | boolean | readonly string[]][]) {
    const origin = originOf(option);
    if (option === 'rewrite') {
      const texts = given as readonly string[];
      values.rewrite = parseRewriteFlags(texts, (index, message, first) =>
        report(origin(texts[index]!), message, first === undefined ? undefined : origin(texts[first]!)),
      );
      continue;
    }
    const text = String(given);
    const raw = typeof given === 'string' ? (FLAG_READERS[option]?.(given) ?? given) : given;
    const result = GLOBAL_FIELDS[option].safeParse(raw, { error: describeIssue });
    if (result.success) values[option] = result.data;
    else reportIssues(result.error.issues, report, () => origin(text));
  }
  return values as GlobalValues;
}

interface TargetFlagSyntax<Value> {
  readonly flag: string;
  /** e.g. "NAME=PROBE, e.g. --ready proxy=http://127.0.0.1:15021/healthz/ready" */
  readonly expected: string;
  readonly parse: (text: string) => Result<Value>;
}

const READY = {
  flag: '--ready',
  expected: 'NAME=PROBE, e.g. --ready proxy=http://127.0.0.1:15021/healthz/ready',
  parse: parseProbe,
};
const QUIT = { flag: '--quit', expected: 'NAME=URL, e.g. --quit mesh=http://127.0.0.1:15020/quitquitquit', parse: parseQuitUrl };
const RESTART = { flag: '--restart', expected: 'NAME=POLICY, e.g. --restart migrate=on-failure', parse: parseRestartPolicy };
const STOP_SIGNAL = { flag: '--stop-signal', expected: 'NAME=SIGNAL, e.g. --stop-signal nginx=SIGQUIT', parse: parseStopSignal };
const USER = { flag: '--user', expected: 'NAME=USER[:GROUP], e.g. --user app=nobody or --user app=1000:1000' };

function parseTargetFlags<Value>(values: readonly string[], syntax: TargetFlagSyntax<Value>, report: Report): TargetFlag<Value>[] {
  return values.flatMap((text) => {
    const origin: Origin = { kind: 'flag', flag: syntax.flag, value: text };
    const assignment = splitAssignment(text);
    if (assignment === undefined) {
      report(origin, `expected ${syntax.expected}`);
      return [];
    }
    const [name, valueText] = assignment;
    return [{ flag: syntax.flag, name, value: valueOrReport(syntax.parse(valueText), origin, report), origin }];
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

import { type CliInput, GLOBAL_OPTION_FLAGS, type GlobalOption, type ProcessFlag } from './cli-input.ts';
import { type Argv, parseCommand } from './command.ts';
import { parseDuration } from './duration.ts';
import { parseDrainFlag } from './hook.ts';
import { isLogLevel, LOG_FORMATS, LOG_LEVELS, OUTPUT_MODES } from './literals.ts';
import type {
  DrainSpec,
  LogFormat,
  LogLevel,
  OutputMode,
  ProbeSpec,
  ProcessUser,
  RestartPolicy,
  Role,
  StatusAddress,
  TerminationLog,
} from '../plan/plan.ts';
import { parseProbe } from './probe.ts';
import { parseExternalSpec, parseQuitUrl } from './external.ts';
import { createExternalDraft, createProcessDraft, type Entry } from './process.ts';
import { type Origin, type Report, valueOrReport } from './problem.ts';
import { parseRestartPolicy } from './restart.ts';
import { fail, listAlternatives, ok, quote, type Result } from './result.ts';
import { parseRewriteFlags, parseStopSignal, type SignalRewrites } from './signals.ts';
import { parseControlPath } from './control-path.ts';
import { parseStatusAddress } from './status-address.ts';
import { parseTerminationLog } from './termination-log.ts';
import { parseUser } from './user.ts';
import { EXIT_CODE_RANGE, parseWholeNumber } from './whole-number.ts';

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
  readonly graceMs: number | undefined;
  readonly logLevel: LogLevel | undefined;
  readonly logFormat: LogFormat | undefined;
  readonly statusAddr: StatusAddress | undefined;
  readonly terminationLog: TerminationLog | undefined;
  readonly controlPath: string | undefined;
  readonly output: OutputMode | undefined;
  readonly drain: DrainSpec | undefined;
  readonly rewrites: SignalRewrites;
  /** undefined: not given, so the file decides. */
  readonly singleChild: boolean | undefined;
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

export function parseFlags(cli: CliInput, report: Report): FlagConfig {
  // A value from SIDECAR_INIT_<OPTION> is reported under the variable's name.
  const flag = (option: GlobalOption, value: string): Origin => ({
    kind: 'flag',
    flag: cli.sources[option] ?? GLOBAL_OPTION_FLAGS[option],
    value,
  });
  const option = <Value>(name: GlobalOption, value: string | undefined, parse: (text: string) => Result<Value>): Value | undefined =>
    value === undefined ? undefined : valueOrReport(parse(value), flag(name, value), report);
  const rewriteOrigin = (index: number) => flag('rewrite', cli.rewrite[index]!);
  return {
    graceMs: option('grace', cli.grace, parseDuration),
    logLevel: option('logLevel', cli.logLevel, parseLogLevel),
    logFormat: option('logFormat', cli.logFormat, oneOf('a log format', LOG_FORMATS)),
    statusAddr: option('statusAddr', cli.statusAddr, parseStatusAddress),
    terminationLog: option('terminationLog', cli.terminationLog, parseTerminationLog),
    controlPath: option('control', cli.control, parseControlPath),
    output: option('output', cli.output, oneOf('an output mode', OUTPUT_MODES)),
    drain: option('drain', cli.drain, parseDrainFlag),
    rewrites: parseRewriteFlags(cli.rewrite, (index, message, first) =>
      report(rewriteOrigin(index), message, first === undefined ? undefined : rewriteOrigin(first)),
    ),
    singleChild: cli.singleChild,
    entries: cli.processes.map((process) => parseProcessFlag(process, report)),
    ready: parseTargetFlags(cli.ready, READY, report),
    quit: parseTargetFlags(cli.quit, QUIT, report),
    restart: parseTargetFlags(cli.restart, RESTART, report),
    stopSignal: parseTargetFlags(cli.stopSignal, STOP_SIGNAL, report),
    user: parseTargetFlags(cli.user, USER, report),
    successCodes:
      cli.successCode.length === 0
        ? undefined
        : cli.successCode.flatMap(
            (value) => valueOrReport(parseWholeNumber(value, EXIT_CODE_RANGE), flag('successCode', value), report) ?? [],
          ),
    app: cli.app.length === 0 ? undefined : parseAppArgs(cli.app, report),
  };
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
const USER = { flag: '--user', expected: 'NAME=USER[:GROUP], e.g. --user app=nobody or --user app=1000:1000', parse: parseUser };

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

function parseProcessFlag({ flag, value }: ProcessFlag, report: Report): Entry {
  if (flag === '--external') return parseExternalFlag(value, report);
  const origin: Origin = { kind: 'flag', flag, value };
  const role: Role = flag === '--init' ? 'init' : 'sidecar';
  const assignment = splitAssignment(value);
  if (assignment === undefined) {
    report(origin, `expected NAME=CMD, e.g. ${flag} ${flag === '--init' ? 'migrate="./migrate up"' : 'proxy="envoy -c /etc/envoy.yaml"'}`);
    return { name: undefined, role, origin, after: undefined, draft: undefined };
  }
  const [name, commandText] = assignment;
  const command = valueOrReport(parseCommand(commandText), origin, report);
  return { name, role, origin, after: undefined, draft: command === undefined ? undefined : createProcessDraft(name, role, command) };
}

/** --external NAME=SPEC: a preset or one matcher. */
function parseExternalFlag(value: string, report: Report): Entry {
  const origin: Origin = { kind: 'flag', flag: '--external', value };
  const assignment = splitAssignment(value);
  if (assignment === undefined) {
    report(origin, 'expected NAME=SPEC, e.g. --external mesh=istio or --external proxy=comm:envoy');
    return { name: undefined, role: 'external', origin, after: undefined, draft: undefined };
  }
  const [name, spec] = assignment;
  const fields = valueOrReport(parseExternalSpec(spec), origin, report);
  return { name, role: 'external', origin, after: undefined, draft: fields === undefined ? undefined : createExternalDraft(name, fields) };
}

function parseLogLevel(value: string): Result<LogLevel> {
  return isLogLevel(value) ? ok(value) : fail(`${quote(value)} is not a log level; use ${LOG_LEVELS.join(', ')}`);
}

/** A parser for one of a few words. */
function oneOf<Word extends string>(what: string, words: readonly Word[]): (text: string) => Result<Word> {
  return (text) => {
    const word = words.find((candidate) => candidate === text);
    return word === undefined ? fail(`${quote(text)} is not ${what}; use ${listAlternatives(words)}`) : ok(word);
  };
}

function parseAppArgs(args: readonly string[], report: Report): AppArgs {
  const origin: Origin = { kind: 'app-args', args };
  return { command: valueOrReport(parseCommand(args), origin, report), origin };
}

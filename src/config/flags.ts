import type { CliInput, ProcessFlag } from './cli-input.ts';
import { type Argv, parseCommand } from './command.ts';
import { parseDuration } from './duration.ts';
import { parseDrainFlag } from './hook.ts';
import { isLogLevel, LOG_LEVELS } from './literals.ts';
import type { DrainSpec, LogLevel, ProbeSpec, ProcessUser, RestartPolicy, Role } from './plan.ts';
import { parseProbe } from './probe.ts';
import { createProcessDraft, type Entry } from './process.ts';
import { type Origin, type Report, valueOrReport } from './problem.ts';
import { parseRestartPolicy } from './restart.ts';
import { quote, type Result } from './result.ts';
import { parseRewriteFlags, parseStopSignal, type SignalRewrites } from './signals.ts';
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
  readonly drain: DrainSpec | undefined;
  readonly rewrites: SignalRewrites;
  readonly singleChild: boolean;
  /** --init and --sidecar entries in command-line order. */
  readonly entries: readonly Entry[];
  readonly ready: readonly TargetFlag<ProbeSpec>[];
  readonly restart: readonly TargetFlag<RestartPolicy>[];
  readonly stopSignal: readonly TargetFlag<NodeJS.Signals>[];
  readonly user: readonly TargetFlag<ProcessUser>[];
  /** --success-code values, for the app; undefined when none was given. */
  readonly successCodes: readonly number[] | undefined;
  readonly app: AppArgs | undefined;
}

export function parseFlags(cli: CliInput, report: Report): FlagConfig {
  const flag = (name: string, value: string): Origin => ({ kind: 'flag', flag: name, value });
  const rewriteOrigin = (index: number) => flag('--rewrite', cli.rewrite[index]!);
  return {
    graceMs: cli.grace === undefined ? undefined : valueOrReport(parseDuration(cli.grace), flag('--grace', cli.grace), report),
    logLevel: parseLogLevel(cli.logLevel, report),
    drain: cli.drain === undefined ? undefined : valueOrReport(parseDrainFlag(cli.drain), flag('--drain', cli.drain), report),
    rewrites: parseRewriteFlags(cli.rewrite, (index, message, first) =>
      report(rewriteOrigin(index), message, first === undefined ? undefined : rewriteOrigin(first)),
    ),
    singleChild: cli.singleChild,
    entries: cli.processes.map((process) => parseProcessFlag(process, report)),
    ready: parseTargetFlags(cli.ready, READY, report),
    restart: parseTargetFlags(cli.restart, RESTART, report),
    stopSignal: parseTargetFlags(cli.stopSignal, STOP_SIGNAL, report),
    user: parseTargetFlags(cli.user, USER, report),
    successCodes:
      cli.successCode.length === 0
        ? undefined
        : cli.successCode.flatMap(
            (value) => valueOrReport(parseWholeNumber(value, EXIT_CODE_RANGE), flag('--success-code', value), report) ?? [],
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

function parseLogLevel(value: string | undefined, report: Report): LogLevel | undefined {
  if (value === undefined || isLogLevel(value)) return value;
  report({ kind: 'flag', flag: '--log-level', value }, `${quote(value)} is not a log level; use ${LOG_LEVELS.join(', ')}`);
  return undefined;
}

function parseAppArgs(args: readonly string[], report: Report): AppArgs {
  const origin: Origin = { kind: 'app-args', args };
  return { command: valueOrReport(parseCommand(args), origin, report), origin };
}

import type { CliInput, ProcessFlag } from './cli-input.ts';
import { createProcessDraft } from './create-process-draft.ts';
import type { Entry } from './entry.ts';
import { LOG_LEVELS, isLogLevel } from './literals.ts';
import { normalizeCommand, type Argv } from './normalize-command.ts';
import { normalizeDrainFlag } from './normalize-drain.ts';
import { normalizeDuration } from './normalize-duration.ts';
import { parseRestartPolicy } from './normalize-restart.ts';
import { normalizeRewriteFlags, type SignalRewrites } from './normalize-rewrites.ts';
import { parseProbe } from './parse-probe.ts';
import { parseSignal } from './parse-signal.ts';
import type { DrainSpec, LogLevel, ProbeSpec, RestartPolicy, Role } from './plan.ts';
import { valueOrReport, type Origin, type Report } from './problem.ts';
import { quote } from './result.ts';
import { flagOrigin, normalizeTargetFlags, splitAssignment, type TargetFlag } from './target-flag.ts';
import { EXIT_CODE_RANGE, parseWholeNumber } from './whole-number.ts';

/** The app given as operands; `command` is undefined when it has problems. */
export interface AppArgs {
  readonly command: Argv | undefined;
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
  /** --success-code values, for the app; undefined when none was given. */
  readonly successCodes: readonly number[] | undefined;
  readonly app: AppArgs | undefined;
}

export function normalizeFlags(cli: CliInput, report: Report): FlagConfig {
  return {
    graceMs: normalizeDuration(cli.grace, undefined, flagOrigin('--grace', cli.grace ?? ''), report),
    logLevel: normalizeLogLevel(cli.logLevel, report),
    drain: cli.drain === undefined ? undefined : normalizeDrainFlag(cli.drain, flagOrigin('--drain', cli.drain), report),
    rewrites: normalizeRewriteFlags(cli.rewrite, report),
    singleChild: cli.singleChild,
    entries: cli.processes.map((flag) => normalizeProcessFlag(flag, report)),
    ready: normalizeTargetFlags(cli.ready, READY, report),
    restart: normalizeTargetFlags(cli.restart, RESTART, report),
    stopSignal: normalizeTargetFlags(cli.stopSignal, STOP_SIGNAL, report),
    successCodes: normalizeSuccessCodes(cli.successCode, report),
    app: normalizeAppArgs(cli.app, report),
  };
}

const READY = {
  flag: '--ready',
  expected: 'NAME=PROBE, e.g. --ready proxy=http://127.0.0.1:15021/healthz/ready',
  parse: parseProbe,
};
const RESTART = { flag: '--restart', expected: 'NAME=POLICY, e.g. --restart migrate=on-failure', parse: parseRestartPolicy };
const STOP_SIGNAL = { flag: '--stop-signal', expected: 'NAME=SIGNAL, e.g. --stop-signal nginx=SIGQUIT', parse: parseSignal };

function normalizeProcessFlag({ flag, value }: ProcessFlag, report: Report): Entry {
  const origin = flagOrigin(flag, value);
  const role: Role = flag === '--init' ? 'init' : 'sidecar';
  const assignment = splitAssignment(value);
  if (assignment === undefined) {
    report(origin, `expected NAME=CMD, e.g. ${flag} ${flag === '--init' ? 'migrate="./migrate up"' : 'proxy="envoy -c /etc/envoy.yaml"'}`);
    return { name: undefined, role, origin, after: undefined, draft: undefined };
  }
  const [name, commandText] = assignment;
  const command = normalizeCommand(commandText, origin, report);
  return { name, role, origin, after: undefined, draft: command === undefined ? undefined : createProcessDraft(name, role, command) };
}

function normalizeSuccessCodes(values: readonly string[], report: Report): number[] | undefined {
  if (values.length === 0) return undefined;
  return values.flatMap(
    (value) => valueOrReport(parseWholeNumber(value, EXIT_CODE_RANGE), flagOrigin('--success-code', value), report) ?? [],
  );
}

function normalizeLogLevel(value: string | undefined, report: Report): LogLevel | undefined {
  if (value === undefined || isLogLevel(value)) return value;
  report(flagOrigin('--log-level', value), `${quote(value)} is not a log level; use ${LOG_LEVELS.join(', ')}`);
  return undefined;
}

function normalizeAppArgs(args: readonly string[], report: Report): AppArgs | undefined {
  if (args.length === 0) return undefined;
  const origin: Origin = { kind: 'app-args', args };
  return { command: normalizeCommand(args, origin, report), origin };
}

import type { CliInput, ProcessFlag } from './cli-input.ts';
import type { Entry } from './entry.ts';
import { LOG_LEVELS, isLogLevel } from './literals.ts';
import { normalizeCommand, type Argv } from './normalize-command.ts';
import { normalizeDuration } from './normalize-duration.ts';
import { normalizeProbe } from './normalize-readiness.ts';
import type { LogLevel, ProbeSpec, Role } from './plan.ts';
import type { Origin, Report } from './problem.ts';
import { quote } from './result.ts';

export interface ReadyFlag {
  readonly name: string;
  /** Undefined when the probe has problems, already reported. */
  readonly probe: ProbeSpec | undefined;
  readonly origin: Origin;
}

/** The app given as operands; `command` is undefined when it has problems. */
export interface AppArgs {
  readonly command: Argv | undefined;
  readonly origin: Origin;
}

/** What the command line contributes; undefined fields were not given (or had problems, already reported). */
export interface FlagConfig {
  readonly graceMs: number | undefined;
  readonly logLevel: LogLevel | undefined;
  /** --init and --sidecar entries in command-line order. */
  readonly entries: readonly Entry[];
  readonly ready: readonly ReadyFlag[];
  readonly app: AppArgs | undefined;
}

export function normalizeFlags(cli: CliInput, report: Report): FlagConfig {
  const graceOrigin = flagOrigin('--grace', cli.grace ?? '');
  return {
    graceMs: normalizeDuration(cli.grace, undefined, graceOrigin, report),
    logLevel: normalizeLogLevel(cli.logLevel, report),
    entries: cli.processes.map((flag) => normalizeProcessFlag(flag, report)),
    ready: cli.ready.flatMap((value) => normalizeReadyFlag(value, report)),
    app: normalizeAppArgs(cli.app, report),
  };
}

function normalizeProcessFlag({ flag, value }: ProcessFlag, report: Report): Entry {
  const origin = flagOrigin(flag, value);
  const role: Role = flag === '--init' ? 'init' : 'sidecar';
  const assignment = splitAssignment(value);
  if (assignment === undefined) {
    report(origin, `expected NAME=CMD, e.g. ${flag} ${flag === '--init' ? 'migrate="./migrate up"' : 'proxy="envoy -c /etc/envoy.yaml"'}`);
    return { name: undefined, role, origin, draft: undefined };
  }
  const [name, commandText] = assignment;
  const command = normalizeCommand(commandText, origin, report);
  const draft = command === undefined ? undefined : { name, role, command, env: {}, cwd: undefined, readiness: undefined };
  return { name, role, origin, draft };
}

function normalizeReadyFlag(value: string, report: Report): ReadyFlag[] {
  const origin = flagOrigin('--ready', value);
  const assignment = splitAssignment(value);
  if (assignment === undefined) {
    report(origin, 'expected NAME=PROBE, e.g. --ready proxy=http://127.0.0.1:15021/healthz/ready');
    return [];
  }
  const [name, probeText] = assignment;
  return [{ name, probe: normalizeProbe(probeText, origin, report), origin }];
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

/** NAME=VALUE split at the first "=", so the value may hold more. */
function splitAssignment(text: string): [string, string] | undefined {
  const index = text.indexOf('=');
  return index < 0 ? undefined : [text.slice(0, index), text.slice(index + 1)];
}

function flagOrigin(flag: string, value: string): Origin {
  return { kind: 'flag', flag, value };
}

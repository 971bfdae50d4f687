import type { ControlRequest } from '../control/protocol.ts';
import { EXIT_WAIT_TIMEOUT, parseSignalName } from '../control/protocol.ts';
import type { CliCommand } from './cli-command.ts';
import { defaultControlDir, defaultControlPath } from '../plan/control-socket.ts';
import { formatDuration, parsePositiveDuration } from '../config/duration.ts';
import { optionVariable } from '../config/global-options.ts';
import { CTL_ERROR_PREFIX } from './error-line.ts';
import { didYouMean } from '../support/closest-match.ts';
import { didYouMeanSignal } from '../support/signal-suggestion.ts';
import { EXIT_SUCCESS, EXIT_USAGE } from './exit-codes.ts';

// `sidecar-init ctl [--control PATH] [--json] COMMAND`: talks to a running
// sidecar-init's control socket. Parsed by hand: five commands and four options.

/** How long restart --wait waits by default: the default readiness deadline. */
const DEFAULT_WAIT_MS = 60_000;

export { CTL_COMMAND } from './command-names.ts';

const CTL_HELP = `Usage: sidecar-init ctl [--control PATH] [--json] COMMAND

Talks to a running sidecar-init through its control socket: by default the one every run of this
uid opens, /tmp/sidecar-init-UID/control.sock (not with --control none), else --control PATH.
Every answer names the sidecar-init that gave it (pid, start, config file): where two of this uid
run, only one holds the default socket; give each its own --control PATH to reach the other.

Commands:
  status                 every process: state, pid, readiness, restarts, its notify STATUS=
  restart [--wait [--timeout DURATION]] NAME
                         stop a sidecar (preStop, stop signal, grace) and start it again; with --wait,
                         return once it is ready again (default timeout: ${formatDuration(DEFAULT_WAIT_MS)})
  stop NAME              stop a sidecar; it stays down until start
  start NAME             start a sidecar stopped with stop
  signal NAME SIGNAL     send SIGNAL (e.g. SIGHUP, HUP) to a process sidecar-init started

Options:
  --control PATH         the control socket (default: $${optionVariable('control')}, else /tmp/sidecar-init-UID/control.sock)
  --json                 print the answer as JSON
  -h, --help             show this help

The app cannot be stopped or restarted this way: its exit ends the pod.
Exit codes: 0 done (with --wait: ready again); 1 refused or unreachable, or with --wait the sidecar
failed or the run ended (the reason on stderr); 2 usage error; ${EXIT_WAIT_TIMEOUT} with --wait, not ready within the timeout.
`;

const ARITY: Readonly<Record<string, number>> = { status: 0, restart: 1, stop: 1, start: 1, signal: 2 };

export function parseCtlArgs(argv: readonly string[], env: NodeJS.ProcessEnv): CliCommand {
  let path: string | undefined;
  let json = false;
  let wait = false;
  let timeoutText: string | undefined;
  const words: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '-h' || arg === '--help') return { kind: 'exit', code: EXIT_SUCCESS, output: CTL_HELP };
    if (arg === '--json') json = true;
    else if (arg === '--wait') wait = true;
    else if (arg === '--timeout') {
      timeoutText = argv[++index];
      if (timeoutText === undefined) return usage("option '--timeout <duration>' argument missing");
    } else if (arg.startsWith('--timeout=')) timeoutText = arg.slice('--timeout='.length);
    else if (arg === '--control') {
      path = argv[++index];
      if (path === undefined) return usage("option '--control <path>' argument missing");
    } else if (arg.startsWith('--control=')) path = arg.slice('--control='.length);
    else if (arg.startsWith('-') && words.length <= 1) return usage(`unknown option '${arg}'`);
    else words.push(arg);
  }
  path ??= env[optionVariable('control')] || undefined;
  const uid = process.geteuid?.() ?? 0;
  // Without a path, the socket every run of this uid opens by default, in a folder that must be this uid's own.
  const trustedDir = path === undefined ? defaultControlDir(uid) : undefined;
  path ??= defaultControlPath(uid);
  const [command, ...args] = words;
  if (command === undefined) return usage('no command: use status, restart NAME, stop NAME, start NAME or signal NAME SIGNAL');
  // Own keys only: `ctl toString x` is an unknown command, not Object.prototype's.
  const arity = Object.hasOwn(ARITY, command) ? ARITY[command] : undefined;
  if (arity === undefined)
    return usage(`unknown command '${command}'${didYouMean(command, Object.keys(ARITY))}: use status, restart, stop, start or signal`);
  if (args.length !== arity)
    return usage(`${command} takes ${arity === 0 ? 'no arguments' : arity === 1 ? 'a NAME' : 'a NAME and a SIGNAL'}`);
  if ((wait || timeoutText !== undefined) && command !== 'restart') return usage('--wait and --timeout are for restart only');
  if (timeoutText !== undefined && !wait) return usage('--timeout needs --wait: restart --wait --timeout 2m NAME');
  const timeout = parsePositiveDuration(timeoutText ?? formatDuration(DEFAULT_WAIT_MS));
  if (!timeout.ok) return usage(`--timeout ${timeout.message}`);
  const request = toRequest(command, args);
  if (typeof request === 'string') return usage(request);
  return { kind: 'ctl', path, trustedDir, request, json, waitMs: wait ? timeout.value : undefined };
}

function toRequest(command: string, [name = '', signalText = '']: string[]): ControlRequest | string {
  switch (command) {
    case 'status':
      return { cmd: 'status' };
    case 'restart':
    case 'stop':
    case 'start':
      return { cmd: 'action', command: { kind: command, name } };
    default: {
      const signal = parseSignalName(signalText);
      if (signal === undefined) return `'${signalText}' is not a signal name${didYouMeanSignal(signalText)}, e.g. SIGHUP or HUP`;
      return { cmd: 'action', command: { kind: 'signal', name, signal } };
    }
  }
}

function usage(message: string): CliCommand {
  return { kind: 'exit', code: EXIT_USAGE, output: `${CTL_ERROR_PREFIX} ${message}\n(sidecar-init ctl --help shows the usage)\n` };
}

import type { ControlRequest } from '../control/protocol.ts';
import { parseSignalName } from '../control/protocol.ts';
import type { CliCommand } from './cli-command.ts';
import { optionVariable } from '../config/global-options.ts';
import { EXIT_SUCCESS, EXIT_USAGE } from './exit-codes.ts';

// `sidecar-init ctl [--control PATH] [--json] COMMAND`: talks to a running
// sidecar-init's control socket. Parsed by hand: five commands and two options.

export { CTL_COMMAND } from './command-names.ts';

const CTL_HELP = `Usage: sidecar-init ctl [--control PATH] [--json] COMMAND

Talks to a running sidecar-init through its control socket (started with --control PATH).

Commands:
  status                 every process: state, pid, readiness, restarts, its notify STATUS=
  restart NAME           stop a sidecar (preStop, stop signal, grace) and start it again
  stop NAME              stop a sidecar; it stays down until start
  start NAME             start a sidecar stopped with stop
  signal NAME SIGNAL     send SIGNAL (e.g. SIGHUP, HUP) to a process sidecar-init started

Options:
  --control PATH         the control socket (default: $${optionVariable('control')})
  --json                 print the answer as JSON
  -h, --help             show this help

The app cannot be stopped or restarted this way: its exit ends the pod.
Exit codes: 0 done; 1 refused or unreachable (the reason on stderr); 2 usage error.
`;

const ARITY: Readonly<Record<string, number>> = { status: 0, restart: 1, stop: 1, start: 1, signal: 2 };

export function parseCtlArgs(argv: readonly string[], env: NodeJS.ProcessEnv): CliCommand {
  let path: string | undefined;
  let json = false;
  const words: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '-h' || arg === '--help') return { kind: 'exit', code: EXIT_SUCCESS, output: CTL_HELP };
    if (arg === '--json') json = true;
    else if (arg === '--control') {
      path = argv[++index];
      if (path === undefined) return usage("option '--control <path>' argument missing");
    } else if (arg.startsWith('--control=')) path = arg.slice('--control='.length);
    else if (arg.startsWith('-') && words.length === 0) return usage(`unknown option '${arg}'`);
    else words.push(arg);
  }
  path ??= env[optionVariable('control')] || undefined;
  if (path === undefined) return usage(`no control socket: give --control PATH or set ${optionVariable('control')}`);
  const [command, ...args] = words;
  if (command === undefined) return usage('no command: use status, restart NAME, stop NAME, start NAME or signal NAME SIGNAL');
  const arity = ARITY[command];
  if (arity === undefined) return usage(`unknown command '${command}': use status, restart, stop, start or signal`);
  if (args.length !== arity)
    return usage(`${command} takes ${arity === 0 ? 'no arguments' : arity === 1 ? 'a NAME' : 'a NAME and a SIGNAL'}`);
  const request = toRequest(command, args);
  if (typeof request === 'string') return usage(request);
  return { kind: 'ctl', path, request, json };
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
      if (signal === undefined) return `'${signalText}' is not a signal name, e.g. SIGHUP or HUP`;
      return { cmd: 'action', command: { kind: 'signal', name, signal } };
    }
  }
}

function usage(message: string): CliCommand {
  return { kind: 'exit', code: EXIT_USAGE, output: `error: ${message}\n(sidecar-init ctl --help shows the usage)\n` };
}

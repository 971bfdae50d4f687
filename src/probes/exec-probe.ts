import type { ProcessUser } from '../plan/plan.ts';
import type { Probe } from './probe.ts';
import { runCommand } from '../attempt/run-command.ts';
import { redactUrlsIn } from '../support/redact-url.ts';

// Ready when a command exits 0, as Kubernetes' exec probe; run-command.ts runs
// it (and ends its whole process group) each attempt. Its output is discarded.
// Its description names the program only: arguments may carry tokens
// (`--password=…`), and descriptions reach warn-level log lines.

export interface ExecProbeOptions {
  /** The probed process's own env, cwd and user: the probe runs "inside" it, as in a container. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  readonly user?: ProcessUser | undefined;
}

export function createExecProbe(command: readonly string[], { env, cwd, user }: ExecProbeOptions): Probe {
  const [program, ...args] = command;
  if (program === undefined) throw new Error('exec probe: the command is empty');
  const description = `exec:${program}`;
  // No onOutput: its output goes to /dev/null.
  const request = { command: [program, ...args] as const, env, cwd, user };
  return {
    description,
    commandLine: redactUrlsIn(command.join(' ')),
    check: (timeoutMs, signal) => runCommand({ request, timeoutMs, label: description }, signal),
  };
}

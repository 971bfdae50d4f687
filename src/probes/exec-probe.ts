import type { Spawner } from '../process/child.ts';
import { describeExitStatus, isSuccess } from '../process/exit-status.ts';
import type { Probe } from './probe.ts';
import { failure, runAttempt } from './run-attempt.ts';

// Ready when a command exits 0, as Kubernetes' exec probe. It runs through the
// Spawner so its pid is in ownedPids (the reaper leaves it to libuv) and in its
// own process group, which is what lets one SIGKILL end it and anything it started.

export interface ExecProbeOptions {
  readonly spawner: Spawner;
  /** The probed process's own env and cwd: the probe runs "inside" it, as in a container. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
}

export function createExecProbe(command: readonly string[], { spawner, env, cwd }: ExecProbeOptions): Probe {
  const [program, ...args] = command;
  if (program === undefined) throw new Error('exec probe: the command is empty');
  const description = `exec:${command.join(' ')}`;
  return {
    description,
    check: (timeoutMs, signal) =>
      runAttempt(timeoutMs, signal, (settle) => {
        const spawned = spawner.spawn({ name: description, command: [program, ...args], env, cwd, stdio: 'none' });
        if (!spawned.ok) {
          settle(failure(spawned.status.reason));
          return () => {};
        }
        const { child } = spawned;
        void child.exited.then((status) =>
          settle(isSuccess(status) ? { ok: true } : failure(`${description}: ${describeExitStatus(status)}`)),
        );
        return async () => {
          // On timeout or abort this kills the probe; after a normal exit it ends
          // whatever the probe left running in its group (a probe runs every
          // period, so a leak would repeat). SIGKILL: a probe gets no grace.
          // ESRCH (nothing left) is the common case and returns false.
          child.signal('SIGKILL', 'group');
          await child.exited;
        };
      }),
  };
}

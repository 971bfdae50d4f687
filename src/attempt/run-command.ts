import type { Child, SpawnRequest, Spawner } from '../process/child.ts';
import { describeExitStatus, isSuccess } from '../lifecycle/exit-status.ts';
import type { AttemptOutcome } from './run-attempt.ts';
import { failure, runAttempt } from './run-attempt.ts';

// One command run to its end as one bounded attempt: what an exec probe and an
// exec hook (preStop, postStart, drain) both are. It runs through the
// supervisor's Spawner, so the reaper leaves its pid to libuv, in its own
// process group; however it ends (exit, timeout, abort) that group gets SIGKILL:
// a command gets no grace of its own (its timeout is the grace), and nothing it
// started may outlive it, since no one else knows those processes exist (an exec
// probe runs every period: a leak would repeat). The outcome resolves only once
// its process is gone.

export interface CommandAttempt {
  readonly spawner: Spawner;
  readonly request: SpawnRequest;
  readonly timeoutMs: number;
  /** Prefixes failure reasons, e.g. with the probe's description. */
  readonly label?: string;
  /** After the command exited and its group was killed, before the outcome: a hook's last output lines. */
  readonly afterExit?: (child: Child) => Promise<void>;
  /** Once the attempt is over, whichever way it ended. */
  readonly cleanup?: () => void;
}

export function runCommand(attempt: CommandAttempt, signal: AbortSignal): Promise<AttemptOutcome> {
  const fail = (reason: string): AttemptOutcome => failure(attempt.label === undefined ? reason : `${attempt.label}: ${reason}`);
  return runAttempt(attempt.timeoutMs, signal, (settle) => {
    const spawned = attempt.spawner.spawn(attempt.request);
    if (!spawned.ok) {
      settle(fail(spawned.status.reason));
      return () => attempt.cleanup?.();
    }
    const { child } = spawned;
    // ESRCH (nothing left in the group) is the common case and returns false.
    const killGroup = (): void => void child.signal('SIGKILL', 'group');
    void child.exited.then(async (status) => {
      killGroup();
      await attempt.afterExit?.(child);
      settle(isSuccess(status) ? { ok: true } : fail(describeExitStatus(status)));
    });
    return async () => {
      killGroup();
      await child.exited;
      attempt.cleanup?.();
    };
  });
}

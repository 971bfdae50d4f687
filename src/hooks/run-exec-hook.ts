import type { ExitStatus } from '../process/exit-status.ts';
import { isSuccess } from '../process/exit-status.ts';
import type { HookSpec } from '../config/plan.ts';
import type { ProbeOutcome } from '../probes/probe.ts';
import { failure, runAttempt } from '../probes/run-attempt.ts';
import { assertNever } from '../util/assert-never.ts';
import type { HookContext } from './hook.ts';
import { createHookOutput } from './hook-output.ts';
import { createExitWatch } from './watch-for-exit.ts';

// An exec hook: ok iff the command exits 0. It runs through the supervisor's
// Spawner (so the reaper leaves its pid to libuv) in its own process group, and
// when it ends, however it ends, that group gets SIGKILL: a hook gets no grace
// of its own (its timeout is the grace), and nothing it started may outlive it,
// since no one else knows those processes exist. The outcome resolves only once
// the hook has been reaped and its last output line delivered.

export type ExecHookSpec = Extract<HookSpec, { kind: 'exec' }>;

export function runExecHook(hook: ExecHookSpec, context: HookContext, signal: AbortSignal): Promise<ProbeOutcome> {
  return runAttempt(hook.timeoutMs, signal, (settle) => {
    const output = createHookOutput(context.onOutputLine);
    const spawned = context.spawner.spawn({
      name: `hook ${hook.command.join(' ')}`,
      command: hook.command,
      env: context.env,
      cwd: context.cwd,
      stdio: 'capture',
      onOutput: output.push,
    });
    if (!spawned.ok) {
      settle(failure(spawned.status.reason));
      return () => {};
    }
    const { child } = spawned;
    // ESRCH (nothing left in the group) is the common case and returns false.
    const killGroup = (): void => void child.signal('SIGKILL', 'group');
    // Both stdout and stderr have closed by the time exited settles, so every
    // chunk has been pushed and the last partial lines can be flushed.
    const done = child.exited.then((status) => {
      output.end();
      return status;
    });
    const watch = createExitWatch(child.pid, killGroup);
    void done.then((status) => settle(isSuccess(status) ? { ok: true } : failure(describeStatus(status))));
    return async () => {
      watch.stop();
      killGroup();
      await done;
    };
  });
}

function describeStatus(status: ExitStatus): string {
  switch (status.kind) {
    case 'exited':
      return `exited with code ${status.code}`;
    case 'signaled':
      return `killed by ${status.signal}`;
    case 'spawn-failed':
      return status.reason;
    default:
      return assertNever(status);
  }
}

import { describeExitStatus, isSuccess } from '../process/exit-status.ts';
import type { HookSpec } from '../config/plan.ts';
import type { ProbeOutcome } from '../probes/probe.ts';
import { failure, runAttempt } from '../probes/run-attempt.ts';
import type { HookContext } from './hook.ts';
import { createHookOutput } from './hook-output.ts';

// An exec hook: ok iff the command exits 0. It runs through the supervisor's
// Spawner (so the reaper leaves its pid to libuv) in its own process group, and
// when it ends, however it ends, that group gets SIGKILL: a hook gets no grace
// of its own (its timeout is the grace), and nothing it started may outlive it,
// since no one else knows those processes exist. The outcome resolves only once
// the hook's process is gone and its last output line has been delivered.

export type ExecHookSpec = Extract<HookSpec, { kind: 'exec' }>;

/**
 * Once the hook has exited and its group is killed, how long its pipes get to
 * close so its last lines are delivered. They stay open only if something that
 * left the group (a daemon that called setsid) inherited them; the outcome does
 * not wait for that.
 */
export const OUTPUT_CLOSE_GRACE_MS = 200;

export function runExecHook(hook: ExecHookSpec, context: HookContext, signal: AbortSignal): Promise<ProbeOutcome> {
  return runAttempt(hook.timeoutMs, signal, (settle) => {
    const output = createHookOutput(context.onOutputLine);
    // Nothing is delivered after the outcome, even if something still writes to the pipes.
    let outputOpen = true;
    const closeOutput = (): void => {
      if (!outputOpen) return;
      outputOpen = false;
      output.end();
    };
    const spawned = context.spawner.spawn({
      name: `hook ${hook.command.join(' ')}`,
      command: hook.command,
      env: context.env,
      cwd: context.cwd,
      stdio: 'capture',
      onOutput: (chunk, stream) => {
        if (outputOpen) output.push(chunk, stream);
      },
    });
    if (!spawned.ok) {
      settle(failure(spawned.status.reason));
      return () => {};
    }
    const { child } = spawned;
    // ESRCH (nothing left in the group) is the common case and returns false.
    const killGroup = (): void => void child.signal('SIGKILL', 'group');
    void child.exited.then(async (status) => {
      // End what the hook left in its group, then let its last lines arrive.
      killGroup();
      await settlesWithin(child.outputDone, OUTPUT_CLOSE_GRACE_MS);
      closeOutput();
      settle(isSuccess(status) ? { ok: true } : failure(describeExitStatus(status)));
    });
    return async () => {
      killGroup();
      await child.exited;
      closeOutput();
    };
  });
}

function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

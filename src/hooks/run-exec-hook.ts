import type { SpawnRequest } from '../process/child.ts';
import type { HookSpec } from '../config/plan.ts';
import type { AttemptOutcome } from '../attempt/run-attempt.ts';
import { runCommand } from '../attempt/run-command.ts';
import type { HookContext } from './hook.ts';
import { createHookOutput } from './hook-output.ts';

// An exec hook: ok iff the command exits 0, run by run-command.ts like an exec
// probe (its process group ends with it), with its output delivered line by line
// to the log. The outcome resolves only once the hook's process is gone and its
// last output line has been delivered.

export type ExecHookSpec = Extract<HookSpec, { kind: 'exec' }>;

/**
 * Once the hook has exited and its group is killed, how long its pipes get to
 * close so its last lines are delivered. They stay open only if something that
 * left the group (a daemon that called setsid) inherited them; the outcome does
 * not wait for that.
 */
export const OUTPUT_CLOSE_GRACE_MS = 200;

export function runExecHook(hook: ExecHookSpec, context: HookContext, signal: AbortSignal): Promise<AttemptOutcome> {
  const output = createHookOutput(context.onOutputLine);
  // Nothing is delivered after the outcome, even if something still writes to the pipes.
  let outputOpen = true;
  const closeOutput = (): void => {
    if (!outputOpen) return;
    outputOpen = false;
    output.end();
  };
  const request: SpawnRequest = {
    name: `hook ${hook.command[0]}`,
    command: hook.command,
    env: context.env,
    cwd: context.cwd,
    user: context.user,
    stdio: 'capture',
    onOutput: (chunk, stream) => {
      if (outputOpen) output.push(chunk, stream);
    },
  };
  return runCommand(
    {
      spawner: context.spawner,
      request,
      timeoutMs: hook.timeoutMs,
      // Its group is dead by now; let its last lines arrive.
      afterExit: async (child) => {
        await settlesWithin(child.outputDone, OUTPUT_CLOSE_GRACE_MS);
        closeOutput();
      },
      cleanup: closeOutput,
    },
    signal,
  );
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

import type { HookSpec } from '../plan/plan.ts';
import type { AttemptOutcome } from '../attempt/run-attempt.ts';
import type { BoundedCommand } from '../attempt/run-command.ts';
import { runCommand } from '../attempt/run-command.ts';
import type { HookContext } from './hook.ts';
import { createHookOutput } from './hook-output.ts';

// An exec hook: ok iff the command exits 0, run by run-command.ts like an exec
// probe (its process group ends with it), with its output delivered line by line
// to the log. The outcome resolves only once the hook's process is gone and its
// last output line has been delivered.

export type ExecHookSpec = Extract<HookSpec, { kind: 'exec' }>;

/** How long a hook's pipes get to close after it exited (run-command.ts). */
export { OUTPUT_CLOSE_GRACE_MS } from '../attempt/run-command.ts';

export function runExecHook(hook: ExecHookSpec, context: HookContext, signal: AbortSignal): Promise<AttemptOutcome> {
  const output = createHookOutput(context.onOutputLine);
  // Nothing is delivered after the outcome, even if something still writes to the pipes.
  let outputOpen = true;
  const request: BoundedCommand = {
    command: hook.command,
    env: context.env,
    cwd: context.cwd,
    user: context.user,
    onOutput: (chunk, stream) => {
      if (outputOpen) output.push(chunk, stream);
    },
  };
  return runCommand(
    {
      request,
      timeoutMs: hook.timeoutMs,
      // Its group is dead and its pipes closed (or their grace over): the unterminated last lines go out.
      afterOutput: () => {
        outputOpen = false;
        output.end();
      },
    },
    signal,
  );
}

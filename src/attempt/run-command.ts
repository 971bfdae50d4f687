import type { Readable } from 'node:stream';
import type { Options } from 'execa';
import type { ProcessUser } from '../plan/plan.ts';
import { describeExitStatus, isSuccess } from '../plan/exit-status.ts';
import type { OutputListener } from '../process/child.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import { addLibuvChild, removeLibuvChild } from '../process/child-registry.ts';
import { explainSpawnFailure, prepareSpawn } from '../process/prepare-spawn.ts';
import type { AttemptOutcome } from './run-attempt.ts';
import { ABORTED_REASON, failure, MAX_TIMER_MS } from './run-attempt.ts';

// One command run to its end as one bounded attempt: what an exec probe and an
// exec hook (preStop, postStart, drain) both are. A bounded command is what
// execa is for: its timeout, its abort (cancelSignal), killing its whole
// process group (killDescendants) and capturing its output are execa's, so
// this module only says how. Long-lived children are forked by the native
// addon instead (src/process/spawn.ts); these alone are libuv's children,
// registered as such in the tick execa spawns them. The command runs in its
// own process group; however it ends (exit, timeout, abort) that group gets
// SIGKILL: a command gets no grace of its own (its timeout is the grace), and
// nothing it started may outlive it, since no one else knows those processes
// exist (an exec probe runs every period: a leak would repeat). The outcome
// resolves only once its process is gone.

export interface BoundedCommand {
  /** argv: program first; resolved through PATH like execvp, never through a shell. */
  readonly command: readonly [string, ...string[]];
  /** Added to the supervisor's environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  readonly user?: ProcessUser | undefined;
  /** Every chunk of stdout and stderr, as it arrives; without it both go to /dev/null. */
  readonly onOutput?: OutputListener;
}

export interface CommandAttempt {
  readonly request: BoundedCommand;
  readonly timeoutMs: number;
  /** Prefixes failure reasons, e.g. with the probe's description. */
  readonly label?: string;
  /** Once the command's output is over (or its grace passed), before the outcome: a hook's last lines. */
  readonly afterOutput?: () => void;
}

/**
 * Once the command has exited and its group is killed, how long its pipes get
 * to close so its last output is delivered. They stay open only if something
 * that left the group (a daemon that called setsid) inherited them; the
 * outcome does not wait for that: the pipes are closed on our side.
 */
export const OUTPUT_CLOSE_GRACE_MS = 200;

// execa is loaded with the first bounded command, not at start: evaluating it
// costs ~16 ms of CPU and ~10 MiB resident (`npm run bench`, "loading execa"),
// and a run without exec probes or hooks never needs it.
let execaModule: Promise<typeof import('execa')> | undefined;
function loadExeca(): Promise<typeof import('execa')> {
  execaModule ??= import('execa');
  return execaModule;
}

export async function runCommand(attempt: CommandAttempt, signal: AbortSignal): Promise<AttemptOutcome> {
  const fail = (reason: string): AttemptOutcome => failure(attempt.label === undefined ? reason : `${attempt.label}: ${reason}`);
  if (signal.aborted) return failure(ABORTED_REASON);
  const prepared = prepareSpawn(attempt.request);
  if (!prepared.ok) return fail(prepared.status.reason);
  let execa: typeof import('execa').execa;
  try {
    ({ execa } = await loadExeca());
  } catch (error) {
    // A broken install; the outcome is still a value, never a rejection.
    return fail(`could not load execa to run the command: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Aborted while execa loaded: nothing was started.
  if (signal.aborted) return failure(ABORTED_REASON);

  const capture = attempt.request.onOutput !== undefined;
  const options = {
    argv0: prepared.argv0,
    cwd: prepared.cwd,
    // Exactly the prepared environment, so PATH resolution and the command see the same values.
    env: prepared.env,
    extendEnv: false,
    ...prepared.ids,
    stdin: 'ignore',
    stdout: capture ? 'pipe' : 'ignore',
    stderr: capture ? 'pipe' : 'ignore',
    // Chunks go to onOutput as they come; nothing is kept, so output cannot grow memory.
    buffer: false,
    // An outcome is a value: a failed command resolves, it does not throw.
    reject: false,
    // Its own process group (setsid), signaled whole on timeout, abort and kill().
    killDescendants: true,
    killSignal: 'SIGKILL',
    forceKillAfterDelay: false,
    timeout: Math.min(attempt.timeoutMs, MAX_TIMER_MS),
    cancelSignal: signal,
    // No exit handlers of execa's on the supervisor's signals: sidecar-init's own decide.
    cleanup: false,
  } as const satisfies Options;
  const subprocess = execa(prepared.file, [...prepared.args], options);
  const pid = subprocess.pid;
  if (pid === undefined) {
    await subprocess;
    return fail(explainSpawnFailure(attempt.request, prepared).reason);
  }
  // In the same tick execa spawned it, so before any SIGCHLD can be handled:
  // the reaper must never waitpid() a pid libuv is about to reap.
  addLibuvChild(pid);
  const exited = new Promise<ExitStatus>((resolve) => {
    // 'exit', not the result: that one also waits for the pipes, which a daemon may hold.
    subprocess.nodeChildProcess.once('exit', (code, exitSignal) => {
      removeLibuvChild(pid);
      resolve(exitSignal !== null ? { kind: 'signaled', signal: exitSignal } : { kind: 'exited', code: code ?? 0 });
    });
  });
  const { onOutput } = attempt.request;
  if (onOutput !== undefined) {
    subprocess.stdout?.on('data', (chunk: Buffer) => onOutput(chunk, 'stdout'));
    subprocess.stderr?.on('data', (chunk: Buffer) => onOutput(chunk, 'stderr'));
  }

  const status = await exited;
  // Whatever it left running in its group ends with it (ESRCH, nothing left, is the common case).
  subprocess.kill('SIGKILL');
  // Without pipes the result is there as soon as execa has seen the exit.
  const result = capture ? await settleOutput(subprocess) : await subprocess;
  attempt.afterOutput?.();
  if (result.timedOut) return failure(`timed out after ${attempt.timeoutMs}ms`);
  if (result.isCanceled) return failure(ABORTED_REASON);
  return isSuccess(status) ? { ok: true } : fail(describeExitStatus(status));
}

const GRACE_OVER = Symbol('grace over');

/** The result once the pipes have closed, or, after the grace, once they are closed on our side. */
async function settleOutput<Result>(
  subprocess: PromiseLike<Result> & { readonly stdout: Readable | null; readonly stderr: Readable | null },
): Promise<Result> {
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<typeof GRACE_OVER>((resolve) => {
    timer = setTimeout(() => resolve(GRACE_OVER), OUTPUT_CLOSE_GRACE_MS);
  });
  const settled = await Promise.race([subprocess, graceOver]);
  clearTimeout(timer);
  if (settled !== GRACE_OVER) return settled;
  subprocess.stdout?.destroy();
  subprocess.stderr?.destroy();
  return subprocess;
}

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

// Reaching the moment a race is about, instead of hoping to win it: the
// command runs under strace, which delivers SIGSTOP right after the command's
// `nth` call of `syscall` returns. strace prints `--- stopped by SIGSTOP ---`
// once the thread is in its group stop, so the test acts after that line (an
// event, not a sleep) and resumes the command with SIGCONT; nothing the
// command does between the call and the test's action can slip in between.

/**
 * strace writes its trace to its stderr; the command's stderr goes to this
 * descriptor instead (Node's extra stdio is a socket, which strace -o cannot open).
 */
const COMMAND_STDERR_FD = 3;
/** On its stderr strace prefixes `[pid N] ` once the command has more than one thread, none before. */
const STOPPED_LINE = /^(?:\[pid +\d+\] )?--- stopped by SIGSTOP ---$/;

export interface StoppedRun {
  readonly child: ChildProcess;
  /** Resolves with the PID of the stopped command (it takes SIGCONT); rejects if the command ended first. */
  readonly stopped: Promise<number>;
  readonly exited: Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>;
  /** SIGKILL to strace and the command (one process group); for cleanup. */
  kill(): void;
}

export function runStoppedAtSyscall(syscall: string, nth: number, argv: readonly string[]): StoppedRun {
  const child = spawn(
    'strace',
    [
      '-f',
      '-e',
      `trace=${syscall}`,
      '-e',
      `inject=${syscall}:signal=SIGSTOP:when=${nth}`,
      '--',
      'sh',
      '-c',
      `exec "$@" 2>&${COMMAND_STDERR_FD}`,
      'sh',
      ...argv,
    ],
    { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], detached: true },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  const commandStderr = child.stdio[COMMAND_STDERR_FD] as NodeJS.ReadableStream;
  commandStderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  let trace = '';
  const stopped = new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stderr as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      if (STOPPED_LINE.test(line) && child.pid !== undefined) resolve(onlyChildOf(child.pid));
      trace += `${line}\n`;
    });
    lines.on('close', () => reject(new Error(`the command ended without a stop after call ${nth} of ${syscall}; strace: ${trace}`)));
  });
  // A rejection nobody awaits (the test failed elsewhere) must not become an unhandled one.
  stopped.catch(() => {});
  return {
    child,
    stopped,
    exited,
    kill() {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    },
  };
}

/** The command strace started (sh exec'd into it, keeping its PID): strace's one child. */
function onlyChildOf(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ');
  if (children.length !== 1) throw new Error(`strace has ${children.length} children, expected its one command`);
  return Number(children[0]);
}

import { spawn } from 'node:child_process';
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { createLineFormat } from '../output/line-format.ts';
import { createLineWriter } from '../output/line-writer.ts';
import { outputSink } from '../output/output-sink.ts';
import { pipeOutput } from '../output/pipe-output.ts';
import type { Child, OutputStream, SpawnRequest, SpawnResult } from './child.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import { addLibuvChild, removeLibuvChild } from './child-registry.ts';
import { explainSpawnFailure } from './prepare-spawn.ts';
import type { PreparedSpawn } from './prepare-spawn.ts';
import { sendSignal } from './send-signal.ts';
import { sweepProcessGroup } from './sweep-group.ts';

// The long-lived children whose spawn needs a pipe, started with Node's own
// child_process: output that passes through sidecar-init (prefixed, teed to a
// log probe, captured) and s6's notification-fd. Everything else is forked by
// the addon (spawn-native.ts), so a plain run never loads this module, nor
// child_process, net, dgram and the streams they bring (spawn.ts loads it
// when the plan has such a process).

/** Only the modes that pipe output: 'inherit' and 'output' pipe only with a readiness fd. */
const STDIO = {
  inherit: 'inherit',
  output: ['ignore', 'inherit', 'inherit'],
  tee: ['ignore', 'pipe', 'pipe'],
  capture: ['ignore', 'pipe', 'pipe'],
  'inherit-tee': ['inherit', 'pipe', 'pipe'],
} as const satisfies Record<SpawnRequest['stdio'], StdioOptions>;

const SPAWN_OPTIONS = {
  // setsid(): each child leads its own process group, so a stop signal reaches
  // its whole tree, and a terminal's Ctrl-C reaches only us (we forward it).
  // The addon's children are placed the same (spawn.c).
  detached: true,
  // argv is run as given, never through a shell (a string command is split like a shell splits words, see docs/configuration.md).
  shell: false,
  // Lifetimes are the lifecycle's business: no timeout, no kill on an abort signal, no IPC channel.
  timeout: 0,
} as const;

export function spawnWithPipes(request: SpawnRequest, prepared: PreparedSpawn): SpawnResult {
  const { file, args, argv0, cwd, env, ids } = prepared;
  // env is exactly the prepared one, so PATH resolution and the child see the same values.
  const stdio = withReadinessFd(STDIO[request.stdio], request.readinessFd);
  let subprocess: ChildProcess;
  try {
    subprocess = spawn(file, args, { ...SPAWN_OPTIONS, stdio, cwd, env, argv0, ...ids });
  } catch (error) {
    // Node throws at once, rather than emitting 'error', for a failure of the
    // child's own steps other than EACCES, EAGAIN, EMFILE, ENFILE and ENOENT:
    // a setuid refused (an id the user namespace does not map), E2BIG, ETXTBSY.
    // That is the child's failure to start, explained as on the addon's path,
    // not the supervisor's crash.
    if (isSpawnFailure(error)) return { ok: false, status: explainSpawnFailure(request, prepared) };
    throw error;
  }
  // A failed spawn, and a pipe that fails, would otherwise be unhandled 'error's that end the
  // supervisor; a failed spawn is explained below, a broken pipe only ends that output early.
  subprocess.on('error', ignore);
  subprocess.stdout?.on('error', ignore);
  subprocess.stderr?.on('error', ignore);
  const pid = subprocess.pid;
  // Node failed the spawn and will only say why on a later tick.
  if (pid === undefined) return { ok: false, status: explainSpawnFailure(request, prepared) };
  // Synchronously, before any SIGCHLD can be handled: the reaper must never
  // waitpid() a pid libuv is about to reap, or its 'exit' would never come.
  addLibuvChild(pid);
  if (request.stdio === 'tee' || request.stdio === 'capture' || request.stdio === 'inherit-tee') {
    routeOutput(subprocess.stdout, 'stdout', request);
    routeOutput(subprocess.stderr, 'stderr', request);
  }

  let running = true;
  // 'exit', not 'close': that one also waits for the stdout/stderr pipes to
  // close, which a background grandchild holding them (`sh -c 'daemon &'`) can
  // delay forever. libuv has reaped the pid by now.
  const exited = new Promise<ExitStatus>((resolve) => {
    subprocess.once('exit', (code, signal) => {
      running = false;
      removeLibuvChild(pid);
      resolve(signal !== null ? { kind: 'signaled', signal } : { kind: 'exited', code: code ?? 0 });
    });
  });
  const child: Child = {
    pid,
    exited,
    // 'close': the process has exited and its stdout and stderr (if piped) have ended.
    outputDone: new Promise((resolve) => subprocess.once('close', () => resolve())),
    signal: (signal, scope = 'group') => sendSignal(pid, signal, scope, running),
    forwardTarget: (scope) => (scope === 'group' ? -pid : pid),
    // After the exit, so the leader itself is never signalled here; its pid is the group's id.
    sweepGroup: (graceMs, abort) => exited.then(() => sweepProcessGroup(pid, graceMs, abort)),
    readinessPipe:
      request.readinessFd === undefined ? undefined : ((subprocess.stdio[request.readinessFd] as Readable | null) ?? undefined),
  };
  return { ok: true, child };
}

/**
 * s6's notification-fd: a pipe at descriptor fd, the descriptors between the
 * standard ones and it left closed ('ignore' past 2 opens nothing in libuv).
 */
function withReadinessFd(base: StdioOptions, fd: number | undefined): StdioOptions {
  if (fd === undefined) return base;
  const standard = typeof base === 'string' ? [base, base, base] : [...base];
  return [...standard, ...Array.from({ length: fd - 3 }, () => 'ignore' as const), 'pipe'];
}

const OUTPUT_FD: Readonly<Record<OutputStream, number>> = { stdout: 1, stderr: 2 };

/**
 * Hands each chunk to onOutput and, for 'tee' and 'inherit-tee', passes it on
 * to the supervisor's own stdout or stderr (see output-sink.ts for why not
 * through process.stdout): unchanged, or line by line as request.lines says.
 * pipeOutput pauses the child's output while the log reader is behind, so
 * back-pressure lands on the child, not on the supervisor.
 */
function routeOutput(readable: Readable | null, stream: OutputStream, request: SpawnRequest): void {
  if (readable === null) return;
  if (request.stdio === 'tee' || request.stdio === 'inherit-tee') {
    const { lines } = request;
    const writer =
      lines === undefined
        ? new PassThrough()
        : createLineWriter(createLineFormat({ mode: lines.mode, name: request.name, width: lines.width, stream }));
    void pipeOutput(readable, writer, outputSink(OUTPUT_FD[stream]));
  }
  const { onOutput } = request;
  if (onOutput !== undefined) readable.on('data', (chunk: Buffer) => onOutput(chunk, stream));
  // Nobody reads captured output: drain it, or the child would block on a full pipe.
  else if (request.stdio === 'capture') readable.resume();
}

function ignore(): void {}

/** An error of the spawn itself (a system call's errno), not of its arguments (ERR_INVALID_ARG_*, a bug). */
function isSpawnFailure(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).syscall?.startsWith('spawn') === true;
}

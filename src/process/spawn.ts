import { spawn } from 'node:child_process';
import type { StdioOptions } from 'node:child_process';
import process from 'node:process';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { createLineFormat } from '../output/line-format.ts';
import { createLineWriter } from '../output/line-writer.ts';
import { outputSink } from '../output/output-sink.ts';
import { pipeOutput } from '../output/pipe-output.ts';
import type { Child, OutputStream, SignalScope, SpawnRequest, SpawnResult, Spawner, StdioMode } from './child.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import { explainExecFailure } from './explain-exec-failure.ts';
import { addLibuvChild, addNativeChild, removeLibuvChild, removeNativeChild } from './child-registry.ts';
import { explainSpawnFailure, prepareSpawn } from './prepare-spawn.ts';
import type { SpawnFailed } from './prepare-spawn.ts';
import { sweepProcessGroup } from './sweep-group.ts';
import type { ForegroundTerminal } from './terminal.ts';
import { errorCode } from '../support/error-code.ts';

// The place that starts long-lived processes (sidecars, init steps, the app),
// with Node's own child_process: what a supervisor needs of a child that lives
// as long as the pod (a pid, an exit, its pipes, signals on our terms) is all
// there, at no load cost. Bounded commands (exec probes and hooks) run through
// execa instead (src/attempt/run-command.ts), loaded on first use. Every option
// that matters for a PID-1 supervisor is set here on purpose, with the reason beside it.
// Children's output goes straight to the container log, byte for byte and at no
// cost (inherited stdout measured at 2.6 GB/s, docs/architecture.md), unless the
// process asks for it to be prefixed, teed to a log probe or captured: only
// those modes pipe it through sidecar-init.
const STDIO = {
  inherit: 'inherit',
  output: ['ignore', 'inherit', 'inherit'],
  tee: ['ignore', 'pipe', 'pipe'],
  capture: ['ignore', 'pipe', 'pipe'],
  'inherit-tee': ['inherit', 'pipe', 'pipe'],
} as const satisfies Record<StdioMode, StdioOptions>;

const SPAWN_OPTIONS = {
  // setsid(): each child leads its own process group, so a stop signal reaches
  // its whole tree, and a terminal's Ctrl-C reaches only us (we forward it).
  detached: true,
  // argv is run as given, never through a shell (a string command is split like a shell splits words, see docs/configuration.md).
  shell: false,
  // Lifetimes are the lifecycle's business: no timeout, no kill on an abort signal, no IPC channel.
  timeout: 0,
} as const;

/** The two registries of children (child-registry.ts), re-exported for main.ts, which hands them to the reaper. */
export { libuvChildren, nativeChildren } from './child-registry.ts';

export interface SpawnerOptions {
  /** The controlling terminal, when sidecar-init holds it: the app (stdio 'inherit') becomes its foreground group. */
  readonly terminal?: ForegroundTerminal | undefined;
}

export function createSpawner(options: SpawnerOptions = {}): Spawner {
  const { terminal } = options;
  return { spawn: (request) => spawnChild(request, terminal) };
}

function spawnChild(request: SpawnRequest, terminal: ForegroundTerminal | undefined): SpawnResult {
  const prepared = prepareSpawn(request);
  if (!prepared.ok) return prepared;
  const { file, args, argv0, cwd, env, ids } = prepared;
  // The native fork passes only the standard descriptors, so a request with an extra one (fd:N's
  // notification pipe) is spawned by libuv; only sidecars have readiness, so the app never has one.
  // A NOTIFY_SOCKET in env reaches either path.
  if (terminal !== undefined && request.stdio === 'inherit' && request.readinessFd === undefined) {
    const onTerminal = spawnForeground(terminal, file, [argv0, ...args], { env, cwd, ids, user: request.user });
    if (onTerminal !== undefined) return onTerminal;
  }
  // env is exactly the prepared one, so PATH resolution and the child see the same values.
  const stdio = withReadinessFd(STDIO[request.stdio], request.readinessFd);
  const subprocess = spawn(file, args, { ...SPAWN_OPTIONS, stdio, cwd, env, argv0, ...ids });
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

/** Long enough never to fire in practice; it only holds the event loop open. */
const KEEP_ALIVE_MS = 2 ** 30;

/**
 * The app on the terminal: forked by the native part, reaped by the reaper
 * (nativeChildren), the terminal given back at its exit. Undefined when the
 * terminal cannot be handed to it (terminal.ts): then it is spawned as usual.
 */
function spawnForeground(
  terminal: ForegroundTerminal,
  path: string,
  argv: readonly string[],
  { env, cwd, ids, user }: { env: NodeJS.ProcessEnv; cwd: string; ids: { uid?: number; gid?: number }; user: SpawnRequest['user'] },
): SpawnResult | undefined {
  let spawned: ReturnType<ForegroundTerminal['spawn']>;
  try {
    spawned = terminal.spawn(
      path,
      argv,
      env,
      cwd,
      ids.gid === undefined ? undefined : { gid: ids.gid, ...(ids.uid === undefined ? {} : { uid: ids.uid }) },
    );
  } catch {
    const failure = explainExecFailure(path, cwd, user);
    const status: SpawnFailed = { kind: 'spawn-failed', code: failure.code, reason: failure.reason };
    return { ok: false, status };
  }
  if (spawned === undefined) return undefined;
  const { pid, group } = spawned;
  let running = true;
  // libuv holds no handle for this child, and signal listeners do not keep
  // Node's loop alive: this timer does, until the reaper reports the exit.
  const keepAlive = setInterval(ignore, KEEP_ALIVE_MS);
  // Registered synchronously: the SIGCHLD of its exit is handled on a later turn of the loop.
  const exited = new Promise<ExitStatus>((resolve) => {
    addNativeChild(pid, (status) => {
      running = false;
      removeNativeChild(pid);
      clearInterval(keepAlive);
      terminal.reclaim();
      resolve(status);
    });
  });
  const child: Child = {
    pid,
    exited,
    outputDone: exited.then(() => undefined),
    // In the caller's group it leads no group: its pid names none (and, once it is gone, may name another's).
    signal: (signal, scope = 'group') => sendSignal(pid, signal, group === 'own' ? scope : 'process', running),
    forwardTarget: (scope) => (group === 'own' && scope === 'group' ? -pid : pid),
    // In its own group (the terminal's foreground group), whose id is its pid; the caller's group is not ours to sweep.
    sweepGroup: (graceMs, abort) => exited.then(() => (group === 'own' ? sweepProcessGroup(pid, graceMs, abort) : 'empty')),
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

function sendSignal(pid: number, signal: NodeJS.Signals, scope: SignalScope, running: boolean): boolean {
  // Once libuv has reaped the child its pid may be reused, so the process alone
  // is never signaled after exit. Its group id stays reserved while any member
  // lives, so signaling the group still reaches descendants left behind.
  if (scope === 'process' && !running) return false;
  try {
    return process.kill(scope === 'group' ? -pid : pid, signal);
  } catch (error) {
    if (errorCode(error) === 'ESRCH') return false;
    throw error;
  }
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

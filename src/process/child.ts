import type { ProcessUser } from '../plan/plan.ts';
import type { Readable } from 'node:stream';
import type { ExitStatus } from '../plan/exit-status.ts';
import type { GroupSweepOutcome } from './sweep-group.ts';

export type { GroupSweepOutcome } from './sweep-group.ts';

// The small interface the lifecycle uses to run processes. The implementation
// lives in spawn.ts, which has the addon fork each child; the only other spawn
// is a bounded command's (src/attempt/run-command.ts, execa), which claims its
// PID in the registry of libuv's children (child-registry.ts).

export interface SpawnRequest {
  /** The plan's process name, for messages. */
  readonly name: string;
  /** argv: program first; resolved through PATH like execvp, never through a shell. */
  readonly command: readonly [string, ...string[]];
  /** Added to the supervisor's environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  /** Run as this uid and gid, supplementary groups cleared; undefined: as sidecar-init. */
  readonly user?: ProcessUser | undefined;
  readonly stdio: StdioMode;
  /** With stdio 'tee' or 'capture': every chunk of stdout and stderr, as it arrives. */
  readonly onOutput?: OutputListener;
  /** With stdio 'tee' or 'inherit-tee': each line rewritten on its way to the container log; unchanged without it. */
  readonly lines?: LineOutput;
  /** s6's notification-fd: the child gets the write end of a pipe at this descriptor (3 or more); see Child.readinessPipe. */
  readonly readinessFd?: number | undefined;
}

/** output: prefix (NAME | LINE, the name padded to `width`) or json ({time, proc, stream, msg}). */
export interface LineOutput {
  readonly mode: 'prefix' | 'json';
  readonly width: number;
}

export type OutputStream = 'stdout' | 'stderr';
export type OutputListener = (chunk: Buffer, stream: OutputStream) => void;

/**
 * inherit: stdin, stdout and stderr are the supervisor's (the app: `docker run -i`
 * still reaches it). output: stdout and stderr inherited, stdin from /dev/null
 * (init steps and sidecars must not steal the app's input). tee: like output, but stdout and stderr pass through
 * the supervisor, unchanged, and onOutput sees them too (a log readiness probe).
 * capture: stdin from /dev/null, stdout and stderr only to onOutput (a child
 * whose output is read, never passed on). inherit-tee: stdin
 * inherited like inherit, stdout and stderr through the supervisor like tee
 * (the app with output prefix or json).
 */
export type StdioMode = 'inherit' | 'output' | 'tee' | 'capture' | 'inherit-tee';

/** Where a signal goes: the child's whole process group, or the child alone. */
export type SignalScope = 'group' | 'process';

export interface Child {
  readonly pid: number;
  /** Resolves once, when the process has exited and been reaped. Never rejects. */
  readonly exited: Promise<ExitStatus>;
  /**
   * Resolves when its piped stdout and stderr have closed (at once for
   * inherited ones): every chunk has reached onOutput. Something the process
   * left running may hold the pipes open long after it exited.
   */
  readonly outputDone: Promise<void>;
  /**
   * Sends a signal. Returns false when the target is already gone (ESRCH), which
   * is expected during teardown and not an error.
   */
  signal(signal: NodeJS.Signals, scope?: SignalScope): boolean;
  /**
   * Where signal(…, scope) sends while the process runs, as kill()'s target:
   * -pid for its group, pid for the process alone. The addon's signal handler
   * sends along it (signal-forwarder.ts).
   */
  forwardTarget(scope: SignalScope): number;
  /**
   * Once the process has exited, ends what it left in its process group
   * (SIGTERM, SIGKILL after graceMs) and resolves when the group is empty or
   * the bounds ran out. Never rejects.
   */
  sweepGroup(graceMs: number, abort: AbortSignal): Promise<GroupSweepOutcome>;
  /** The read end of the pipe at SpawnRequest.readinessFd; undefined without one. */
  readonly readinessPipe?: Readable | undefined;
}

export type SpawnResult =
  | { readonly ok: true; readonly child: Child }
  | { readonly ok: false; readonly status: ExitStatus & { readonly kind: 'spawn-failed' } };

export interface Spawner {
  spawn(request: SpawnRequest): SpawnResult;
}

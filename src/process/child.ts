import type { ExitStatus } from './exit-status.ts';

// The small interface the lifecycle uses to run processes. The execa-backed
// implementation lives in spawn.ts; nothing else spawns.

export interface SpawnRequest {
  /** The plan's process name, for messages. */
  readonly name: string;
  /** argv: program first; resolved through PATH like execvp, never through a shell. */
  readonly command: readonly [string, ...string[]];
  /** Added to the supervisor's environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  readonly stdio: StdioMode;
}

/**
 * inherit: stdin, stdout and stderr are the supervisor's (the app: `docker run -i`
 * still reaches it). output: stdout and stderr inherited, stdin from /dev/null
 * (init steps and sidecars must not steal the app's input). none: all to
 * /dev/null (exec probes: as in Kubernetes, a probe's chatter every period is not
 * the container's log).
 */
export type StdioMode = 'inherit' | 'output' | 'none';

/** Where a signal goes: the child's whole process group, or the child alone. */
export type SignalScope = 'group' | 'process';

export interface Child {
  readonly pid: number;
  /** Resolves once, when the process has exited and been reaped. Never rejects. */
  readonly exited: Promise<ExitStatus>;
  /**
   * Sends a signal. Returns false when the target is already gone (ESRCH), which
   * is expected during teardown and not an error.
   */
  signal(signal: NodeJS.Signals, scope?: SignalScope): boolean;
}

export type SpawnResult =
  | { readonly ok: true; readonly child: Child }
  | { readonly ok: false; readonly status: ExitStatus & { readonly kind: 'spawn-failed' } };

export interface Spawner {
  spawn(request: SpawnRequest): SpawnResult;
  /**
   * PIDs of children this supervisor spawned and libuv still owns. The reaper
   * must never wait on these, or it would steal their exit status from execa.
   */
  readonly ownedPids: ReadonlySet<number>;
}

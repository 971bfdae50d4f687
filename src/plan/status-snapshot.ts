import type { Role } from '../plan/plan.ts';

// What the status server shows, as one read-only value the runner produces on
// request. The server never reaches into the lifecycle: it asks its
// StatusSource (src/runner/ports.ts) for a snapshot per request, so an answer
// is always one consistent moment, and nothing the server does (or fails to
// do) can change what the supervisor decides. It lives in plan/, below the
// runner that builds it and the server that reads it: the server imports the
// runner's port, so the runner must not import the server's folder back.

/** The supervisor's phase: nothing is ready before 'running' or from 'stopping' on. */
export type StatusPhase = 'starting' | 'running' | 'stopping' | 'done';

export const STATUS_PHASES: readonly StatusPhase[] = ['starting', 'running', 'stopping', 'done'];

/**
 * pending: waiting for its dependencies. spawning: asked to start. running:
 * alive. backoff: exited, a restart is scheduled. stopping: its stop signal was
 * sent. exited: gone for good. skipped: never started because the pod stopped first.
 */
export type ProcessState = 'pending' | 'spawning' | 'running' | 'backoff' | 'stopping' | 'exited' | 'skipped';

/** Roles as the plan names them; a process sidecar-init did not spawn (found in the pod) is an 'external'. */
export type StatusRole = Role | 'external';

export interface LastExit {
  /** The exit code, or null when a signal ended it. */
  readonly code: number | null;
  readonly signal: string | null;
  /** When it was seen to exit (ISO 8601, UTC). */
  readonly at: string;
}

export interface ProcessSnapshot {
  readonly name: string;
  readonly role: StatusRole;
  readonly state: ProcessState;
  /** The current run's pid; undefined while nothing runs. */
  readonly pid: number | undefined;
  /**
   * Whether this process holds the container's readiness back while it is not
   * ready: the app, and every sidecar or external (its probe's verdict, or
   * simply running when it has none). Init steps never do.
   */
  readonly gatesReadiness: boolean;
  /** The readiness probe's latest verdict for the current run; true without a probe. */
  readonly probeReady: boolean;
  /** Every restart since sidecar-init started (never reset, unlike the backoff count). */
  readonly restarts: number;
  readonly lastExit: LastExit | undefined;
  /** The STATUS= text the current run last sent to its notify socket (printable, at most 200 characters); undefined without one. */
  readonly statusText?: string | undefined;
}

export interface StatusSnapshot {
  readonly phase: StatusPhase;
  /** In plan order. */
  readonly processes: readonly ProcessSnapshot[];
  /** Orphans reaped so far (processes sidecar-init adopted, not its own children). */
  readonly reapedOrphans: number;
  /** How long teardown has taken: growing while it runs, fixed once everything is down; undefined before it began. */
  readonly teardownSeconds: number | undefined;
}

/** Ready now: running and, with a probe, passing it. */
export function isProcessReady(process: ProcessSnapshot): boolean {
  return process.state === 'running' && process.probeReady;
}

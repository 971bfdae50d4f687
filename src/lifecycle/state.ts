import type { Plan } from '../config/plan.ts';
import type { ExitStatus } from '../process/exit-status.ts';

// The lifecycle's state is plain data: decide.ts computes the next state and the
// effects to run from (state, event), so every rule can be tested without
// spawning anything, and each question ("SIGTERM while a sidecar is still
// probing") is answered in exactly one place.

/**
 * pending: waiting for its dependencies. spawning: asked to start, not yet
 * confirmed. running: alive (a sidecar that is not yet ready is 'running').
 * started: a sidecar whose readiness passed. stopping: its stop signal was sent.
 * exited: gone, with a status. skipped: never started because the pod stopped.
 */
export type ProcStatus = 'pending' | 'spawning' | 'running' | 'started' | 'stopping' | 'exited' | 'skipped';

export interface ProcState {
  readonly status: ProcStatus;
  /** Set once a sidecar's readiness first passed; it stays set, so a later crash does not block its dependents. */
  readonly started: boolean;
  readonly exit: ExitStatus | undefined;
}

/** Why teardown began; it decides the exit code. */
export type StopReason =
  | { readonly kind: 'app-exited'; readonly status: ExitStatus }
  | { readonly kind: 'signal'; readonly signal: NodeJS.Signals }
  | { readonly kind: 'init-failed'; readonly name: string; readonly status: ExitStatus }
  | { readonly kind: 'sidecar-failed'; readonly name: string; readonly status: ExitStatus | undefined; readonly reason: string };

/**
 * starting: the app has not been spawned yet. running: the app is up.
 * stopping: teardown is under way; nothing new starts. done: everything is down.
 */
export type Phase = 'starting' | 'running' | 'stopping' | 'done';

export interface LifecycleState {
  readonly phase: Phase;
  readonly procs: ReadonlyMap<string, ProcState>;
  readonly stopReason: StopReason | undefined;
  /** SIGTERM/SIGINT received so far; a second one during teardown skips the grace. */
  readonly stopSignalsReceived: number;
  readonly graceExpired: boolean;
}

export function createInitialState(plan: Plan): LifecycleState {
  return {
    phase: 'starting',
    procs: new Map(plan.processes.map((spec) => [spec.name, { status: 'pending', started: false, exit: undefined }])),
    stopReason: undefined,
    stopSignalsReceived: 0,
    graceExpired: false,
  };
}

/** A process that may still be alive and so must be stopped and waited for. */
export function isAlive(status: ProcStatus): boolean {
  return status === 'spawning' || status === 'running' || status === 'started' || status === 'stopping';
}

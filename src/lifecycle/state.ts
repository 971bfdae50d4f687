import type { Plan } from '../config/plan.ts';
import type { ExitStatus } from '../process/exit-status.ts';

// The lifecycle's state is plain data: decide.ts computes the next state and the
// effects to run from (state, event), so every rule can be tested without
// spawning anything, and each question ("SIGTERM while a sidecar is restarting
// during init") is answered in exactly one place.

/**
 * pending: waiting for its dependencies. spawning: asked to start, not yet
 * confirmed. running: alive. backoff: exited, a restart is scheduled.
 * stopping: its stop signal was sent. exited: gone for good. skipped: never
 * started because the pod stopped first.
 */
export type ProcStatus = 'pending' | 'spawning' | 'running' | 'backoff' | 'stopping' | 'exited' | 'skipped';

/** Where a process's preStop hook is; 'none' until termination starts it (or when there is none to run). */
export type PreStopState = 'none' | 'running' | 'done';

export interface ProcState {
  readonly status: ProcStatus;
  /**
   * Set the first time the process is up (a sidecar: ready and its postStart
   * done). It stays set across restarts, so a later crash never blocks dependents
   * again and never re-runs init steps.
   */
  readonly started: boolean;
  /** The current run is up: liveness runs only then. */
  readonly up: boolean;
  /** The readiness probe's latest verdict for the current run (true without a probe). */
  readonly ready: boolean;
  readonly postStartDone: boolean;
  readonly preStop: PreStopState;
  /** Restarts since the last backoff reset; the attempt number in logs is this + 1. */
  readonly restarts: number;
  /** When the current run was spawned (the runner's monotonic clock, ms). */
  readonly spawnedAt: number | undefined;
  /** The current run was stopped as unhealthy (liveness or postStart failed): its exit counts as a failure. */
  readonly killedAsUnhealthy: boolean;
  readonly exit: ExitStatus | undefined;
}

/** Why teardown began; it decides the exit code. */
export type StopReason =
  | { readonly kind: 'app-exited'; readonly status: ExitStatus }
  | { readonly kind: 'signal'; readonly signal: NodeJS.Signals }
  | { readonly kind: 'init-failed'; readonly name: string; readonly status: ExitStatus }
  | { readonly kind: 'sidecar-failed'; readonly name: string; readonly status: ExitStatus | undefined; readonly reason: string }
  | { readonly kind: 'fatal-sidecar'; readonly name: string; readonly status: ExitStatus };

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
  /** The pod-level drain runs: no stop signal goes out until it ends. */
  readonly draining: boolean;
  /** The grace budget ran out (or a second signal skipped it): no more orderly steps. */
  readonly graceExpired: boolean;
}

const FRESH_PROC: ProcState = {
  status: 'pending',
  started: false,
  up: false,
  ready: false,
  postStartDone: false,
  preStop: 'none',
  restarts: 0,
  spawnedAt: undefined,
  killedAsUnhealthy: false,
  exit: undefined,
};

export function createInitialState(plan: Plan): LifecycleState {
  return {
    phase: 'starting',
    procs: new Map(plan.processes.map((spec) => [spec.name, FRESH_PROC])),
    stopReason: undefined,
    stopSignalsReceived: 0,
    draining: false,
    graceExpired: false,
  };
}

/** A process that may still be alive and so must be stopped and waited for. */
export function isAlive(status: ProcStatus): boolean {
  return status === 'spawning' || status === 'running' || status === 'stopping';
}

import type { Plan } from '../plan/plan.ts';
import type { ExitStatus } from '../plan/exit-status.ts';

// The lifecycle's state is plain data: decide.ts computes the next state and the
// effects to run from (state, event), so every rule can be tested without
// spawning anything, and each question ("SIGTERM while a sidecar is restarting
// during init") is answered in exactly one place. docs/architecture.md draws
// the phases and the statuses as state diagrams, kept to these unions by
// state-diagram.test.ts.

/** What outlives a single run of a process: kept across restarts. */
interface ProcHistory {
  /**
   * Set the first time the process is up (a sidecar: ready and its postStart
   * done). It stays set across restarts, so a later crash never blocks dependents
   * again and never re-runs init steps.
   */
  readonly started: boolean;
  /** Restarts since the last backoff reset; the attempt number in logs is this + 1. */
  readonly restarts: number;
}

/** Waiting for its dependencies. */
export interface PendingProc {
  readonly status: 'pending';
}

/** Never started because the pod stopped first. */
export interface SkippedProc {
  readonly status: 'skipped';
}

/** Asked to start, not yet confirmed. */
export interface SpawningProc extends ProcHistory {
  readonly status: 'spawning';
  /** An earlier run was spawned: the readiness deadline already runs from that first spawn. */
  readonly spawnedBefore: boolean;
}

/** Alive, and not yet told to stop. */
export interface RunningProc extends ProcHistory {
  readonly status: 'running';
  /** When this run was spawned (the event's time, ms). */
  readonly spawnedAt: number;
  /** The readiness probe's latest verdict for this run (true without a probe). */
  readonly ready: boolean;
  readonly postStartDone: boolean;
  /** This run is up (was ready and past its postStart): liveness runs only then. */
  readonly up: boolean;
}

/** Its stop signal was sent; waiting for it to exit. */
export interface StoppingProc extends ProcHistory {
  readonly status: 'stopping';
  readonly spawnedAt: number;
  /** Stopped as unhealthy (liveness or postStart failed): its exit counts as a failure. */
  readonly killedAsUnhealthy: boolean;
  /** Stopped on a control request: restarted at once after its exit, or kept down until started again. */
  readonly byControl?: 'restart' | 'stop' | undefined;
}

/**
 * Exited; a restart is scheduled. The next run starts once the backoff delay is
 * over and what the last run left in its process group is gone, whichever
 * comes last: a new instance never meets the old one's leftovers (holding its
 * port, its lock, its socket).
 */
export interface BackoffProc extends ProcHistory {
  readonly status: 'backoff';
  readonly exit: ExitStatus;
  readonly delayOver: boolean;
  readonly groupGone: boolean;
}

/** Gone for good, or until a control request starts it again (held). */
export interface ExitedProc extends ProcHistory {
  readonly status: 'exited';
  readonly exit: ExitStatus;
  /** Stopped on a control request: kept down until one starts it. */
  readonly held?: boolean | undefined;
}

/**
 * One process's place in the lifecycle, discriminated on status: each status
 * carries only the facts that mean something in it, so "ready but not running"
 * or "an exit status while alive" cannot be written down.
 */
export type ProcState = PendingProc | SkippedProc | SpawningProc | RunningProc | StoppingProc | BackoffProc | ExitedProc;

/** Why teardown began; it decides the exit code. */
export type StopReason =
  | { readonly kind: 'app-exited'; readonly status: ExitStatus }
  | { readonly kind: 'signal'; readonly signal: NodeJS.Signals }
  | { readonly kind: 'init-failed'; readonly name: string; readonly status: ExitStatus }
  | { readonly kind: 'sidecar-failed'; readonly name: string; readonly status: ExitStatus | undefined; readonly reason: string }
  | { readonly kind: 'fatal-sidecar'; readonly name: string; readonly status: ExitStatus }
  | { readonly kind: 'external-failed'; readonly name: string; readonly reason: string }
  /** `--until FILE`: another container announced the state waited for; the pod ends as if the app exited 0. */
  | { readonly kind: 'until'; readonly file: string; readonly state: string };

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
  /** When teardown began (the time of the event that began it, ms): the grace budget counts from here. */
  readonly teardownStartedAt: number | undefined;
  /** Processes whose preStop hook runs (teardown starts each at most once): their stop signal waits for it. */
  readonly preStopsRunning: ReadonlySet<string>;
  /** Externals whose process has been seen at least once: an optional one not seen by its deadline is absent. */
  readonly externalsFound: ReadonlySet<string>;
  /** Externals whose stop ended with a matching process still there: sidecar-init's own work failed (exit-code.ts). */
  readonly externalsLeftRunning: ReadonlySet<string>;
}

const FRESH_PROC: ProcState = { status: 'pending' };

export function createInitialState(plan: Plan): LifecycleState {
  return {
    phase: 'starting',
    procs: new Map(plan.processes.map((spec) => [spec.name, FRESH_PROC])),
    stopReason: undefined,
    stopSignalsReceived: 0,
    draining: false,
    graceExpired: false,
    teardownStartedAt: undefined,
    preStopsRunning: new Set(),
    externalsFound: new Set(),
    externalsLeftRunning: new Set(),
  };
}

/** A process that may still be alive and so must be stopped and waited for. */
export function isAlive(proc: ProcState): proc is SpawningProc | RunningProc | StoppingProc {
  return proc.status === 'spawning' || proc.status === 'running' || proc.status === 'stopping';
}

/** Whether the process was ever up (pending and skipped ones never were). */
export function hasStarted(proc: ProcState): boolean {
  return proc.status !== 'pending' && proc.status !== 'skipped' && proc.started;
}

import type { ExitStatus } from '../plan/exit-status.ts';
import type { StopReason } from './state.ts';

/** The lifecycle's timers: one each at most, so a key names it. */
export type TimerKey =
  /** The whole grace budget, from the start of teardown. */
  | { readonly kind: 'grace' }
  /** SIGKILL for what outlived the budget's SIGTERM. */
  | { readonly kind: 'kill' }
  /** A sidecar's readiness deadline, from its first spawn, across restarts. */
  | { readonly kind: 'deadline'; readonly name: string }
  /** The end of a process's restart backoff (the restart also waits for 'group-swept'). */
  | { readonly kind: 'restart'; readonly name: string }
  /** A process's own grace after its stop signal: SIGKILL when it runs out. */
  | { readonly kind: 'process-grace'; readonly name: string };

export type HookName = 'postStart' | 'preStop';

/**
 * What a client of the control socket asks for one process. restart and stop
 * follow the process's own preStop, stop signal and grace; a stopped sidecar
 * stays down until start; signal sends one signal, as `kill` would.
 */
export type ControlCommand =
  | { readonly kind: 'restart' | 'stop' | 'start'; readonly name: string }
  | { readonly kind: 'signal'; readonly name: string; readonly signal: NodeJS.Signals };
export type WatchKind = 'readiness' | 'liveness';

// Everything that can happen to the supervisor arrives as one of these, through
// one queue, in order, stamped with `at`: the runner's monotonic clock (ms) when
// it arrived. Decisions that depend on time (backoff reset, the grace budget's
// start) read it from the event, so they stay pure.
export type LifecycleEventBody =
  | { readonly type: 'boot' }
  | { readonly type: 'spawned'; readonly name: string }
  | { readonly type: 'exited'; readonly name: string; readonly status: ExitStatus }
  | { readonly type: 'readiness'; readonly name: string; readonly ready: boolean }
  | { readonly type: 'liveness-failed'; readonly name: string; readonly reason: string }
  | { readonly type: 'hook-done'; readonly name: string; readonly hook: HookName; readonly ok: boolean }
  | { readonly type: 'drain-done' }
  /**
   * `forwarded`: the runner already passed it on to the app along
   * forwardRoute() as the signal arrived, so only what else it means is left.
   */
  /** `count`: the deliveries this one stands for, more than one when the addon merged a flood of a signal with no route (one per window). */
  | { readonly type: 'signal'; readonly signal: NodeJS.Signals; readonly forwarded?: boolean; readonly count?: number }
  | { readonly type: 'timer'; readonly timer: TimerKey }
  /** What a process's last run left in its process group is gone (or outlived the sweep's bound). */
  | { readonly type: 'group-swept'; readonly name: string }
  /** A process matching an external was seen in /proc for the first time. */
  | { readonly type: 'external-found'; readonly name: string }
  /**
   * Stopping an external ended: every match gone and still gone a moment later
   * (stopped), none there (absent), or some still there when the budget ended
   * (left-running, which fails the run).
   */
  | { readonly type: 'external-stopped'; readonly name: string; readonly outcome: ExternalStopOutcome }
  /** A control socket request (id: to match its reply), from a client with this uid. */
  | { readonly type: 'control'; readonly id: number; readonly command: ControlCommand; readonly uid: number }
  /** `--until FILE[=STATE]`: the file announced STATE (or a later one). */
  | { readonly type: 'until-reached'; readonly file: string; readonly state: string };

export type ExternalStopOutcome = 'stopped' | 'absent' | 'left-running';

export type LifecycleEvent = LifecycleEventBody & { readonly at: number };

/**
 * Why a signal is sent: 'stop' is a process's orderly stop, 'forward' passes on
 * a signal the supervisor received, 'unhealthy' stops a process whose liveness
 * probe or postStart hook failed (to restart it), 'expire' and 'kill' end what
 * outlived a grace, 'control-stop' is a stop or restart asked for on the
 * control socket, 'control' a signal asked for there.
 */
export type SignalPurpose = 'stop' | 'forward' | 'unhealthy' | 'expire' | 'kill' | 'control-stop' | 'control';

// What decide.ts asks the runner to do. Effects carry names, never PIDs: the
// runner owns the handles.
export type Effect =
  | { readonly type: 'spawn'; readonly name: string }
  | { readonly type: 'start-watch'; readonly name: string; readonly watch: WatchKind }
  | { readonly type: 'stop-watch'; readonly name: string; readonly watch: WatchKind }
  | { readonly type: 'run-hook'; readonly name: string; readonly hook: HookName }
  | { readonly type: 'cancel-hook'; readonly name: string; readonly hook: HookName }
  | { readonly type: 'run-drain' }
  | { readonly type: 'cancel-drain' }
  | { readonly type: 'signal'; readonly name: string; readonly signal: NodeJS.Signals; readonly purpose: SignalPurpose }
  | { readonly type: 'start-timer'; readonly timer: TimerKey; readonly ms: number }
  /**
   * End what a process's last run left in its process group before it runs
   * again: SIGTERM to the group, SIGKILL after graceMs, until the group is
   * empty (bounded); then 'group-swept'.
   */
  | { readonly type: 'sweep-group'; readonly name: string; readonly graceMs: number }
  | { readonly type: 'cancel-timer'; readonly timer: TimerKey }
  | { readonly type: 'finish'; readonly exitCode: number }
  /** Look for an external's processes until one appears (then 'external-found'). */
  | { readonly type: 'watch-external'; readonly name: string }
  /** Stop an external (quit endpoint, signal, wait, SIGKILL) within budgetMs; then 'external-stopped'. */
  | { readonly type: 'stop-external'; readonly name: string; readonly budgetMs: number }
  /** SIGKILL what is left of an external now (the budget ran out, or a second stop signal). */
  | { readonly type: 'kill-external'; readonly name: string }
  /** A line of the supervisor's own story (see LifecycleLine). */
  | { readonly type: 'log'; readonly line: LifecycleLine }
  /** The answer to control request id: done (or under way), or refused with the reason. */
  | { readonly type: 'control-reply'; readonly id: number; readonly ok: boolean; readonly message: string };

/**
 * What the supervisor's log says about the lifecycle, decided where the change
 * is made: the step that makes it knows why. The runner writes each line
 * (runner/lifecycle-lines.ts), adding what only it knows: PIDs, the grace
 * budget, what a probe last said.
 */
export type LifecycleLine =
  | { readonly kind: 'exited'; readonly name: string; readonly status: ExitStatus }
  /** A signal that is neither forwarded (its line is written as it goes) nor a second stop signal. */
  | { readonly kind: 'signal-received'; readonly signal: NodeJS.Signals; readonly count?: number }
  /** `leftovers`: everything planned was already down; the final sweep is cut short. */
  | { readonly kind: 'second-stop-signal'; readonly signal: NodeJS.Signals; readonly leftovers: boolean }
  | { readonly kind: 'grace-expired' }
  /** A sidecar or external is up: ready and past its postStart, at its first start and after each restart. */
  | { readonly kind: 'up'; readonly name: string }
  /** Teardown began; `appRunning` tells a stop of the app from a stop during startup. */
  | { readonly kind: 'teardown'; readonly reason: StopReason; readonly appRunning: boolean }
  /** `duringTeardown`: a sidecar exited before its turn to stop, so it runs again until then (teardown-restarts.ts). */
  | {
      readonly kind: 'restart-scheduled';
      readonly name: string;
      readonly attempt: number;
      readonly delayMs: number;
      readonly duringTeardown?: true;
    }
  /** An optional external never appeared, or one is left running on purpose. */
  | { readonly kind: 'external-skipped'; readonly name: string; readonly why: ExternalSkip };

export type ExternalSkip = 'absent' | 'stop-none' | 'kept-on-failure';

export function timerId(timer: TimerKey): string {
  return 'name' in timer ? `${timer.kind}:${timer.name}` : timer.kind;
}

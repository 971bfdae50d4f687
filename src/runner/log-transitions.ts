import type { ExitStatus } from '../plan/exit-status.ts';
import { assertNever } from '../plan/assert-never.ts';
import type { LifecycleEvent } from '../lifecycle/events.ts';
import { describeExitStatus, exitCodeOf } from '../plan/exit-status.ts';
import type { ProcessGraph } from '../plan/process-graph.ts';
import type { LifecycleLog } from './lifecycle-log.ts';
import type { LifecycleState, StopReason } from '../lifecycle/state.ts';

// The supervisor's own story, told from the events it handled. Field names are
// stable (proc, pid, role, event, exitCode, signal) so log pipelines can rely on them.

/** The pid of a process's current (or last) run, for log lines. */
export type PidOf = (name: string) => number | undefined;

export interface TransitionLog {
  readonly log: LifecycleLog;
  readonly graph: ProcessGraph;
  readonly graceMs: number;
  readonly pidOf: PidOf;
  /** The latest failure of a process's readiness probe (e.g. "grpc://127.0.0.1:9090: NOT_SERVING"), for a startup failure's line. */
  readonly lastProbeFailureOf?: ((name: string) => string | undefined) | undefined;
}

/** Logs what one decision changed: the event itself when it is news, sidecars that came up, teardown beginning. */
export function logTransition(view: TransitionLog, event: LifecycleEvent, before: LifecycleState, after: LifecycleState): void {
  logSidecarsUp(view, before, after);
  logEvent(view.log, view.pidOf, event, before, after);
  logTeardown(view, before, after);
}

function logEvent(log: LifecycleLog, pidOf: PidOf, event: LifecycleEvent, before: LifecycleState, after: LifecycleState): void {
  switch (event.type) {
    case 'exited': {
      if (event.status.kind === 'spawn-failed') return; // logged where the spawn failed
      const fields = {
        event: 'exited',
        pid: pidOf(event.name),
        exitCode: exitCodeOf(event.status),
        signal: event.status.kind === 'signaled' ? event.status.signal : undefined,
      };
      return log.of(event.name).info(fields, 'exited');
    }
    case 'signal':
      if (after.stopSignalsReceived >= 2 && after.stopSignalsReceived > before.stopSignalsReceived) {
        const message =
          before.phase === 'done' ? 'second stop signal: ending leftover processes now' : 'second stop signal: killing everything now';
        return log.pod.warn({ event: 'signal', signal: event.signal }, message);
      }
      // A forwarded signal has its line already, written once the app had it:
      // one line per signal, not two (the second cost every forward CPU time
      // the app then waited for on a busy node; bench/signal-forward.ts).
      if (event.forwarded === true) return;
      return log.pod.info({ event: 'signal', signal: event.signal }, 'received signal');
    case 'timer':
      if (event.timer.kind === 'grace' && after.graceExpired && !before.graceExpired) {
        log.pod.warn({ event: 'grace-expired' }, 'grace budget exhausted; sending SIGTERM to everything still running');
      }
      return;
    case 'external-found':
    case 'external-stopped':
    case 'group-swept':
      return; // logged by the runner, which has the PIDs and the outcome
    case 'control':
      return; // logged by the runner with its reply
    case 'spawned':
    case 'readiness':
    case 'liveness-failed':
    case 'hook-done':
    case 'drain-done':
    case 'boot':
    case 'until-reached': // the teardown line says it
      return;
    default:
      return assertNever(event);
  }
}

/** A sidecar is up: ready and past its postStart (at its first start, and again after each restart). */
function logSidecarsUp({ log, graph, pidOf }: TransitionLog, before: LifecycleState, after: LifecycleState): void {
  for (const [name, proc] of after.procs) {
    const role = graph.spec(name).role;
    if (proc.status !== 'running' || !proc.up || (role !== 'sidecar' && role !== 'external')) continue;
    const was = before.procs.get(name);
    if (was?.status === 'running' && was.up) continue;
    const message = graph.spec(name).readiness === undefined ? 'started (no readiness probe)' : 'ready';
    log.of(name).info({ event: 'ready', pid: pidOf(name) }, message);
  }
}

/**
 * Teardown began: one line saying why, naming the process at fault. Logged
 * when the stop reason appears, even if teardown also ended in the same step
 * (nothing was left running), so no exit goes unexplained.
 */
function logTeardown({ log, graceMs, lastProbeFailureOf }: TransitionLog, before: LifecycleState, after: LifecycleState): void {
  if (before.stopReason !== undefined || after.stopReason === undefined) return;
  const reason = after.stopReason;
  const fields = { event: 'teardown', reason: reason.kind, graceMs };
  if (reason.kind === 'app-exited') return log.pod.info(fields, 'app exited; stopping sidecars in reverse order');
  // A stop signal is the ordinary end of a pod; only failures are warnings.
  const level = reason.kind === 'signal' ? 'info' : 'warn';
  // Why a sidecar never got ready: what its probe last said (a status, a refused connection, a timeout).
  const lastProbeFailure =
    reason.kind === 'sidecar-failed' || reason.kind === 'external-failed' ? lastProbeFailureOf?.(reason.name) : undefined;
  log.pod[level](
    { ...fields, proc: 'name' in reason ? reason.name : undefined, ...(lastProbeFailure === undefined ? {} : { lastProbeFailure }) },
    describeStopReason(reason, before.phase === 'running'),
  );
}

export function describeStopReason(reason: StopReason, appRunning: boolean): string {
  switch (reason.kind) {
    case 'app-exited':
      return 'app exited';
    case 'signal':
      return appRunning
        ? `received ${reason.signal}; stopping the app, then sidecars in reverse order`
        : `received ${reason.signal} during startup; stopping what runs and starting nothing new`;
    case 'init-failed':
      return `init step ${reason.name} failed (exit ${exitCodeOf(reason.status)}); the app will not start`;
    case 'sidecar-failed':
      return `sidecar ${reason.name} failed to start: ${reason.reason}; the app will not start`;
    case 'fatal-sidecar':
      return `fatal sidecar ${reason.name} is down (exit ${exitCodeOf(reason.status)}); stopping the app and the other sidecars`;
    case 'external-failed':
      return `external ${reason.name} failed to start: ${reason.reason}; the app will not start`;
    case 'until':
      return `${reason.file} announced ${reason.state}; stopping the app, then sidecars in reverse order`;
    default:
      return assertNever(reason);
  }
}

/** A restart was scheduled: its attempt number and the delay chosen. */
export function logRestartScheduled(
  log: LifecycleLog,
  effect: { readonly name: string; readonly attempt: number; readonly delayMs: number },
): void {
  const fields = { event: 'restarting', attempt: effect.attempt, delayMs: effect.delayMs };
  log.of(effect.name).warn(fields, `restart ${effect.attempt} in ${effect.delayMs}ms`);
}

/**
 * The lifecycle's last line; with a non-zero code it names the process and the
 * reason, so no failure goes unexplained. Returns its text (the termination message).
 */
export function logFinished(
  { log, graph }: TransitionLog,
  state: LifecycleState,
  exitCode: number,
  budgetUsed: { readonly budgetUsedMs?: number },
): string {
  const reason = state.stopReason;
  const fields = { event: 'finished', exitCode, ...budgetUsed };
  if (exitCode === 0 || reason === undefined) {
    const message = 'all processes stopped';
    log.pod.info(fields, message);
    return message;
  }
  const app = state.procs.get(graph.app.name);
  const appExit = app?.status === 'exited' ? app.exit : undefined;
  const proc = 'name' in reason ? reason.name : reason.kind === 'signal' && appExit === undefined ? undefined : graph.app.name;
  // The app's own code (or a signal's) is the ordinary end of a Job; a failure of the pod's own is a warning.
  const level = reason.kind === 'app-exited' || reason.kind === 'signal' ? 'info' : 'warn';
  const message = `all processes stopped; exit code ${exitCode}: ${describeExitReason(reason, graph.app.name, appExit)}`;
  log.pod[level]({ ...fields, reason: reason.kind, proc }, message);
  return message;
}

/** Why the supervisor exits as it does, for its last line; `appExit` is how the app ended, if it ran. */
function describeExitReason(reason: StopReason, appName: string, appExit: ExitStatus | undefined): string {
  switch (reason.kind) {
    case 'app-exited':
      return `app ${appName} ${describeExitStatus(reason.status)}`;
    case 'signal':
      return appExit === undefined
        ? `received ${reason.signal}`
        : `received ${reason.signal}; app ${appName} ${describeExitStatus(appExit)}`;
    case 'init-failed':
      return `init step ${reason.name} ${describeExitStatus(reason.status)}`;
    case 'sidecar-failed':
      return `sidecar ${reason.name} failed to start: ${reason.reason}`;
    case 'fatal-sidecar':
      return `fatal sidecar ${reason.name} ${describeExitStatus(reason.status)}`;
    case 'external-failed':
      return `external ${reason.name} failed to start: ${reason.reason}`;
    case 'until':
      return `${reason.file} announced ${reason.state}`;
    default:
      return assertNever(reason);
  }
}

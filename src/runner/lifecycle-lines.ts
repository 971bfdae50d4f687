import type { ExitStatus } from '../plan/exit-status.ts';
import { assertNever } from '../plan/assert-never.ts';
import type { ExternalSkip, LifecycleLine } from '../lifecycle/events.ts';
import { describeExitStatus, exitCodeOf } from '../plan/exit-status.ts';
import type { ProcessGraph } from '../plan/process-graph.ts';
import type { LifecycleLog } from './lifecycle-log.ts';
import type { LifecycleState, StopReason } from '../lifecycle/state.ts';
import { roleAndName } from '../support/role-and-name.ts';

// The supervisor's own story: the lines the reducer decides on (`log` effects)
// and the last one, on `finish`. Field names are stable (proc, pid, role, event,
// exitCode, signal) so log pipelines can rely on them.

/** The pid of a process's current (or last) run, for log lines. */
export type PidOf = (name: string) => number | undefined;

export interface LineView {
  readonly log: LifecycleLog;
  readonly graph: ProcessGraph;
  readonly graceMs: number;
  readonly pidOf: PidOf;
  /** The latest failure of a process's readiness probe (e.g. "grpc://127.0.0.1:9090: NOT_SERVING"), for a startup failure's line. */
  readonly lastProbeFailureOf?: ((name: string) => string | undefined) | undefined;
}

/** Writes one line the reducer decided on (a `log` effect). */
export function logLine(view: LineView, line: LifecycleLine): void {
  const { log, graph, pidOf } = view;
  switch (line.kind) {
    case 'exited': {
      const { status } = line;
      const signal = status.kind === 'signaled' ? status.signal : undefined;
      return log.of(line.name).info({ event: 'exited', pid: pidOf(line.name), exitCode: exitCodeOf(status), signal }, 'exited');
    }
    case 'signal-received':
      return log.pod.info({ event: 'signal', signal: line.signal, count: line.count }, `received ${line.signal}`);
    case 'second-stop-signal':
      return log.pod.warn(
        { event: 'signal', signal: line.signal },
        line.leftovers ? 'second stop signal: ending leftover processes now' : 'second stop signal: killing everything now',
      );
    case 'grace-expired':
      return log.pod.warn({ event: 'grace-expired' }, 'grace budget exhausted; sending SIGTERM to everything still running');
    case 'up': {
      const message = graph.spec(line.name).readiness === undefined ? 'ready once started (no readiness probe)' : 'ready';
      return log.of(line.name).info({ event: 'ready', pid: pidOf(line.name) }, message);
    }
    case 'teardown':
      return logTeardown(view, line.reason, line.appRunning);
    case 'restart-scheduled': {
      const fields = { event: 'restarting', attempt: line.attempt, delayMs: line.delayMs };
      const restart = `restart ${line.attempt} in ${line.delayMs}ms`;
      if (line.duringTeardown !== true) return log.of(line.name).warn(fields, restart);
      // Why a process runs again while everything else is being stopped.
      const why = `restart during teardown: ${line.name} exited before its turn to stop; ${restart}`;
      return log.of(line.name).warn({ ...fields, duringTeardown: true }, why);
    }
    case 'external-skipped': {
      const logger = log.of(line.name);
      if (line.why === 'absent') return logger.warn({ event: 'external-absent' }, SKIPPED[line.why]);
      return logger.info({ event: 'external-kept' }, SKIPPED[line.why]);
    }
    default:
      return assertNever(line);
  }
}

const SKIPPED: Readonly<Record<ExternalSkip, string>> = {
  absent: 'optional external never appeared within its deadline; going on without it',
  'stop-none': 'left running (stop: none)',
  'kept-on-failure': 'left running: sidecar-init exits non-zero and stopOnFailure is false',
};

/** Teardown began: one line saying why, naming the process at fault. */
function logTeardown({ log, graph, graceMs, lastProbeFailureOf }: LineView, reason: StopReason, appRunning: boolean): void {
  const fields = { event: 'teardown', reason: reason.kind, graceMs };
  if (reason.kind === 'app-exited')
    return log.pod.info(fields, `${roleAndName('app', graph.app.name)} exited; stopping sidecars in reverse order`);
  // A stop signal is the ordinary end of a pod; only failures are warnings.
  const level = reason.kind === 'signal' ? 'info' : 'warn';
  // Why a sidecar never got ready: what its probe last said (a status, a refused connection, a timeout).
  const lastProbeFailure =
    reason.kind === 'sidecar-failed' || reason.kind === 'external-failed' ? lastProbeFailureOf?.(reason.name) : undefined;
  log.pod[level](
    { ...fields, proc: 'name' in reason ? reason.name : undefined, ...(lastProbeFailure === undefined ? {} : { lastProbeFailure }) },
    describeStopReason(reason, appRunning),
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

/**
 * The lifecycle's last line; with a non-zero code it names the process and the
 * reason, so no failure goes unexplained. Returns its text (the termination message).
 */
export function logFinished(
  { log, graph }: LineView,
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
      return `${roleAndName('app', appName)} ${describeExitStatus(reason.status)}`;
    case 'signal':
      return appExit === undefined
        ? `received ${reason.signal}`
        : `received ${reason.signal}; ${roleAndName('app', appName)} ${describeExitStatus(appExit)}`;
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

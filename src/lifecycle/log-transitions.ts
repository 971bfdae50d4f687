import type { Logger } from 'pino';
import type { Child } from '../process/child.ts';
import { exitCodeOf } from './exit-status.ts';
import type { LifecycleEvent } from './events.ts';
import type { ProcessGraph } from './graph.ts';
import type { LifecycleState, StopReason } from './state.ts';
import { assertNever } from '../util/assert-never.ts';

// The supervisor's own story, told from the events it handled. Field names are
// stable (proc, pid, role, event, exitCode, signal) so log pipelines can rely on them.

export function logEvent(
  logger: Logger,
  graph: ProcessGraph,
  children: ReadonlyMap<string, Child>,
  event: LifecycleEvent,
  before: LifecycleState,
  after: LifecycleState,
): void {
  logSidecarsUp(logger, graph, children, before, after);
  switch (event.type) {
    case 'exited': {
      if (event.status.kind === 'spawn-failed') return; // logged where the spawn failed
      const role = graph.spec(event.name).role;
      const fields = {
        event: 'exited',
        proc: event.name,
        role,
        pid: children.get(event.name)?.pid,
        exitCode: exitCodeOf(event.status),
        signal: event.status.kind === 'signaled' ? event.status.signal : undefined,
      };
      return logger.info(fields, 'exited');
    }
    case 'signal':
      if (before.phase === 'stopping' && after.stopSignalsReceived >= 2 && after.stopSignalsReceived > before.stopSignalsReceived) {
        return logger.warn({ event: 'signal', signal: event.signal }, 'second stop signal: killing everything now');
      }
      return logger.info({ event: 'signal', signal: event.signal }, 'received signal');
    case 'timer':
      if (event.timer.kind === 'grace' && after.graceExpired && !before.graceExpired) {
        logger.warn({ event: 'grace-expired' }, 'grace budget exhausted; sending SIGTERM to everything still running');
      }
      return;
    case 'spawned':
    case 'readiness':
    case 'liveness-failed':
    case 'hook-done':
    case 'drain-done':
    case 'boot':
      return;
    default:
      return assertNever(event);
  }
}

/** A sidecar is up: ready and past its postStart (at its first start, and again after each restart). */
function logSidecarsUp(
  logger: Logger,
  graph: ProcessGraph,
  children: ReadonlyMap<string, Child>,
  before: LifecycleState,
  after: LifecycleState,
): void {
  for (const [name, proc] of after.procs) {
    if (!proc.up || before.procs.get(name)?.up === true || graph.spec(name).role !== 'sidecar') continue;
    const message = graph.spec(name).readiness === undefined ? 'started (no readiness probe)' : 'ready';
    logger.info({ event: 'ready', proc: name, role: 'sidecar', pid: children.get(name)?.pid }, message);
  }
}

export function logPhaseChange(logger: Logger, before: LifecycleState, after: LifecycleState, graceMs: number): void {
  if (before.phase === after.phase || after.phase !== 'stopping' || after.stopReason === undefined) return;
  const reason = after.stopReason;
  const fields = { event: 'teardown', reason: reason.kind, graceMs };
  if (reason.kind === 'app-exited') return logger.info(fields, 'app exited; stopping sidecars in reverse order');
  // A stop signal is the ordinary end of a pod; only failures are warnings.
  const level = reason.kind === 'signal' ? 'info' : 'warn';
  logger[level]({ ...fields, proc: 'name' in reason ? reason.name : undefined }, describeStopReason(reason, before.phase === 'running'));
}

function describeStopReason(reason: StopReason, appRunning: boolean): string {
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
    default:
      return assertNever(reason);
  }
}

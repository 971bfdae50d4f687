import type { Logger } from 'pino';
import type { Child } from '../process/child.ts';
import { exitCodeOf } from '../process/exit-status.ts';
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
    case 'ready':
      if (after.procs.get(event.name)?.started === true && before.procs.get(event.name)?.started !== true) {
        logger.info({ event: 'ready', proc: event.name, role: 'sidecar', pid: children.get(event.name)?.pid }, 'ready');
      }
      return;
    case 'spawned': {
      const spec = graph.spec(event.name);
      if (spec.role === 'sidecar' && spec.readiness === undefined && before.phase !== 'stopping') {
        logger.info({ event: 'ready', proc: event.name, role: spec.role, pid: children.get(event.name)?.pid }, 'started (no readiness probe)');
      }
      return;
    }
    case 'not-ready':
      return logger.error({ event: 'not-ready', proc: event.name, role: 'sidecar' }, event.reason);
    case 'signal':
      if (before.phase === 'stopping' && after.stopSignalsReceived >= 2 && (event.signal === 'SIGTERM' || event.signal === 'SIGINT')) {
        return logger.warn({ event: 'signal', signal: event.signal }, 'second stop signal: killing everything now');
      }
      return logger.info({ event: 'signal', signal: event.signal }, 'received signal');
    case 'grace-expired':
      return logger.warn({ event: 'grace-expired' }, 'grace budget exhausted; sending SIGTERM to everything still running');
    case 'kill-timer':
    case 'boot':
      return;
    default:
      return assertNever(event);
  }
}

export function logPhaseChange(logger: Logger, before: LifecycleState, after: LifecycleState, graceMs: number): void {
  if (before.phase === after.phase || after.phase !== 'stopping' || after.stopReason === undefined) return;
  const reason = after.stopReason;
  const fields = { event: 'teardown', reason: reason.kind, graceMs };
  if (reason.kind === 'app-exited') return logger.info(fields, 'app exited; stopping sidecars in reverse order');
  return logger.warn({ ...fields, proc: 'name' in reason ? reason.name : undefined }, describeStopReason(reason, before.phase === 'running'));
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
    default:
      return assertNever(reason);
  }
}

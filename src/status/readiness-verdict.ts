import type { ProcessSnapshot, StatusSnapshot } from '../plan/status-snapshot.ts';
import { isProcessReady } from '../plan/status-snapshot.ts';
import { assertNever } from '../plan/assert-never.ts';

// The container's one readiness answer, as Kubernetes would want it from a
// pod: ready only while the app runs and every sidecar (and external) that can
// be unready is ready now. Startup, a restarting sidecar, a failing probe and
// teardown all make it unready, so a Service stops sending traffic in time.

export interface ReadinessVerdict {
  readonly ready: boolean;
  /** One line per reason, for the /readyz body: what to look at first. */
  readonly reasons: readonly string[];
}

export function judgeReadiness(snapshot: StatusSnapshot): ReadinessVerdict {
  const reasons: string[] = [];
  if (snapshot.phase !== 'running') reasons.push(`sidecar-init: ${describePhase(snapshot.phase)}`);
  for (const process of snapshot.processes) {
    if (!process.gatesReadiness || isProcessReady(process)) continue;
    reasons.push(`${process.name} (${process.role}): ${describeUnready(process)}`);
  }
  return { ready: reasons.length === 0, reasons };
}

function describePhase(phase: StatusSnapshot['phase']): string {
  switch (phase) {
    case 'starting':
      return 'starting, the app is not running yet';
    case 'stopping':
      return 'stopping';
    case 'done':
      return 'every process has stopped';
    case 'running':
      return 'running';
    default:
      return assertNever(phase);
  }
}

function describeUnready(process: ProcessSnapshot): string {
  switch (process.state) {
    case 'running':
      return 'readiness probe not passing';
    case 'backoff':
      return 'restarting';
    case 'pending':
      return 'not started yet';
    case 'spawning':
      return 'starting';
    case 'stopping':
      return 'stopping';
    case 'exited':
      return 'exited';
    case 'skipped':
      return 'never started';
    default:
      return assertNever(process.state);
  }
}

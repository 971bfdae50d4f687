import type { ExitStatus } from '../plan/exit-status.ts';
import type { LastExit, ProcessSnapshot, ProcessState, StatusSnapshot } from '../plan/status-snapshot.ts';
import type { ProcessGraph } from '../plan/process-graph.ts';
import type { LifecycleState } from '../lifecycle/state.ts';
import { isAlive } from '../lifecycle/state.ts';

// What the status server shows, read off the lifecycle's state plus the few
// facts the state does not keep (pids, every restart ever, when each process
// last exited). Pure: the runner calls it when a request comes in.

/** What the runner records beside the state, for the status only. */
export interface StatusFacts {
  /** Spawns so far per process: every one after the first is a restart (the state's count resets with the backoff). */
  readonly spawns: ReadonlyMap<string, number>;
  readonly lastExits: ReadonlyMap<string, LastExit>;
  readonly pidOf: (name: string) => number | undefined;
  /** The current run's latest STATUS= (notify probe), printable and bounded. */
  readonly statusTextOf?: ((name: string) => string | undefined) | undefined;
  /** When the last process went down (the runner's clock, ms); undefined while any runs. */
  readonly finishedAt: number | undefined;
  readonly reapedOrphans: number;
}

export function describeStatus(graph: ProcessGraph, state: LifecycleState, facts: StatusFacts, now: number): StatusSnapshot {
  const teardownEnd = facts.finishedAt ?? now;
  return {
    phase: state.phase,
    processes: graph.order.map((spec): ProcessSnapshot => {
      const proc = state.procs.get(spec.name) ?? { status: 'pending' };
      return {
        name: spec.name,
        role: spec.role,
        state: proc.status satisfies ProcessState,
        pid: isAlive(proc) ? facts.pidOf(spec.name) : undefined,
        gatesReadiness: spec.role !== 'init',
        // Ready means usable: its probe passes and its postStart is done.
        probeReady: proc.status === 'running' && proc.ready && proc.postStartDone,
        restarts: Math.max(0, (facts.spawns.get(spec.name) ?? 0) - 1),
        lastExit: facts.lastExits.get(spec.name),
        statusText: isAlive(proc) ? facts.statusTextOf?.(spec.name) : undefined,
      };
    }),
    reapedOrphans: facts.reapedOrphans,
    teardownSeconds: state.teardownStartedAt === undefined ? undefined : Math.max(0, teardownEnd - state.teardownStartedAt) / 1000,
  };
}

/** The exit as the status shows it: a code or a signal, and when. */
export function describeLastExit(status: ExitStatus, at: Date): LastExit {
  switch (status.kind) {
    case 'exited':
    case 'spawn-failed':
      return { code: status.code, signal: null, at: at.toISOString() };
    case 'signaled':
      return { code: null, signal: status.signal, at: at.toISOString() };
  }
}

import type { ProcessSnapshot, StatusSnapshot } from '../../src/plan/status-snapshot.ts';

// One builder for the status server's input, so a test states only what it is about.

/** A process as the runner would show it: running, ready, never restarted, with a pid; init steps gate nothing. */
export function processSnapshot(name: string, role: ProcessSnapshot['role'], overrides: Partial<ProcessSnapshot> = {}): ProcessSnapshot {
  return {
    name,
    role,
    state: 'running',
    pid: 100,
    gatesReadiness: role !== 'init',
    probeReady: true,
    restarts: 0,
    lastExit: undefined,
    ...overrides,
  };
}

export function statusSnapshot(
  phase: StatusSnapshot['phase'],
  processes: readonly ProcessSnapshot[],
  overrides: Partial<Omit<StatusSnapshot, 'phase' | 'processes'>> = {},
): StatusSnapshot {
  return { phase, processes, reapedOrphans: 0, teardownSeconds: undefined, ...overrides };
}

/** The pod most status tests look at: a proxy sidecar, a finished migration step, the job. */
export function podSnapshot(
  phase: StatusSnapshot['phase'],
  { proxy = {}, reapedOrphans = 0 }: { readonly proxy?: Partial<ProcessSnapshot>; readonly reapedOrphans?: number } = {},
): StatusSnapshot {
  return statusSnapshot(
    phase,
    [
      processSnapshot('proxy', 'sidecar', { pid: 41, restarts: 1, ...proxy }),
      processSnapshot('migrate', 'init', {
        state: 'exited',
        pid: undefined,
        lastExit: { code: 0, signal: null, at: '2026-01-01T00:00:00.000Z' },
      }),
      processSnapshot('job', 'app', { pid: 43 }),
    ],
    { reapedOrphans },
  );
}

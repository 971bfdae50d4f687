import { judgeReadiness } from './readiness-verdict.ts';
import type { StatusSnapshot } from '../plan/status-snapshot.ts';
import { isProcessReady } from '../plan/status-snapshot.ts';

// The /status body. Absent values are null rather than missing keys, so a
// consumer (jq, a dashboard) sees the same shape in every phase.

export interface StatusDocument {
  readonly phase: StatusSnapshot['phase'];
  readonly ready: boolean;
  readonly reapedOrphans: number;
  readonly teardownSeconds: number | null;
  readonly processes: readonly {
    readonly name: string;
    readonly role: string;
    readonly state: string;
    readonly pid: number | null;
    readonly ready: boolean;
    readonly restarts: number;
    readonly lastExit: { readonly code: number | null; readonly signal: string | null; readonly at: string } | null;
    /** The latest STATUS= sent to its notify socket. */
    readonly statusText: string | null;
  }[];
}

/** The document of one snapshot; `ready` is /readyz's verdict on that same snapshot. */
export function statusDocument(snapshot: StatusSnapshot): StatusDocument {
  return {
    phase: snapshot.phase,
    ready: judgeReadiness(snapshot).ready,
    reapedOrphans: snapshot.reapedOrphans,
    teardownSeconds: snapshot.teardownSeconds ?? null,
    processes: snapshot.processes.map((process) => ({
      name: process.name,
      role: process.role,
      state: process.state,
      pid: process.pid ?? null,
      ready: isProcessReady(process),
      restarts: process.restarts,
      lastExit: process.lastExit ?? null,
      statusText: process.statusText ?? null,
    })),
  };
}

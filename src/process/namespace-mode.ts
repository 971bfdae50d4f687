import { readFileSync, readdirSync } from 'node:fs';
import { listDescendants, parseProcStat, type ProcEntry } from './proc-table.ts';

// Where sidecar-init runs decides what it can see and whom it reaps: as PID 1
// of its container it reaps every orphan; elsewhere it is a child subreaper for
// its own descendants only; in a pod with shareProcessNamespace the pause
// process is PID 1 and every container's processes are visible in /proc,
// which is what `external` entries need. Logged once at start.

export type NamespaceMode =
  | { readonly kind: 'pid1' }
  /** Not PID 1 and nothing else to see but our own ancestors: a plain container or shell. */
  | { readonly kind: 'subreaper' }
  /** Not PID 1, and processes that are neither ours nor our ancestors are visible. */
  | { readonly kind: 'shared'; readonly foreign: number };

const PID_NAME = /^[0-9]+$/;

export function detectNamespaceMode(selfPid: number = process.pid): NamespaceMode {
  if (selfPid === 1) return { kind: 'pid1' };
  const table = readTable();
  const ours = new Set<number>([selfPid, ...listDescendants(selfPid, table).map((entry) => entry.pid)]);
  const parentOf = new Map(table.map((entry) => [entry.pid, entry.ppid]));
  for (let pid = parentOf.get(selfPid); pid !== undefined && pid > 0 && !ours.has(pid); pid = parentOf.get(pid)) ours.add(pid);
  const foreign = table.filter((entry) => !ours.has(entry.pid) && entry.state !== 'Z' && entry.state !== 'X').length;
  return foreign === 0 ? { kind: 'subreaper' } : { kind: 'shared', foreign };
}

export function describeNamespaceMode(mode: NamespaceMode): string {
  switch (mode.kind) {
    case 'pid1':
      return 'PID 1';
    case 'subreaper':
      return 'subreaper';
    case 'shared':
      return `shared namespace with ${mode.foreign} foreign process${mode.foreign === 1 ? '' : 'es'} visible`;
  }
}

function readTable(): ProcEntry[] {
  const table: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!PID_NAME.test(name)) continue;
    try {
      const entry = parseProcStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (entry !== undefined) table.push(entry);
    } catch {
      // exited while we looked
    }
  }
  return table;
}

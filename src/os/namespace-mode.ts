import { assertNever } from '../plan/assert-never.ts';
import { countNoun } from '../support/count-noun.ts';
import { isLiveEntry, listOwnLineage, readProcEntry, readProcTable } from './proc-table.ts';

// Where sidecar-init runs decides what it can see and whom it reaps: as PID 1
// of its container it reaps every orphan; elsewhere it is a child subreaper for
// its own descendants only; in a pod with shareProcessNamespace the pause
// process is PID 1 and every container's processes are visible in /proc,
// which is what `external` entries need; on the host itself (or with hostPID)
// every process of the machine is visible, and the start line says so in the
// same words as the refusal of externals there. Logged once at start.

export type NamespaceMode =
  | { readonly kind: 'pid1' }
  /** Not PID 1 and nothing else to see but our own ancestors: a plain container or shell. */
  | { readonly kind: 'subreaper' }
  /** Not PID 1, and processes that are neither ours nor our ancestors are visible: a pod's shared namespace. */
  | { readonly kind: 'shared'; readonly foreign: number }
  /** Not PID 1, and /proc shows the host's processes (seesHostProcesses): a developer's machine, a hostPID pod. */
  | { readonly kind: 'host'; readonly foreign: number };

export async function detectNamespaceMode(
  selfPid: number = process.pid,
  onHost: () => boolean = seesHostProcesses,
): Promise<NamespaceMode> {
  if (selfPid === 1) return { kind: 'pid1' };
  const table = await readProcTable();
  const ours = listOwnLineage(selfPid, table);
  const foreign = table.filter((entry) => !ours.has(entry.pid) && isLiveEntry(entry) && !entry.kernelThread).length;
  if (onHost()) return { kind: 'host', foreign };
  return foreign === 0 ? { kind: 'subreaper' } : { kind: 'shared', foreign };
}

/**
 * Whether /proc shows the host's processes: sidecar-init runs in the initial
 * PID namespace (on the host, or in a container with hostPID), or reads a
 * /proc mounted from there. Told by kthreadd: kernel threads live in the
 * initial namespace only, and kthreadd is always its PID 2. NSpid in
 * /proc/self/status cannot tell: a container's runtime mounts /proc from
 * inside the container's namespace, so NSpid has a single entry there too.
 */
export function seesHostProcesses(): boolean {
  const kthreadd = readProcEntry(KTHREADD_PID);
  return kthreadd?.kernelThread === true;
}

/** The kernel's thread creator, PID 2 of the initial PID namespace. */
const KTHREADD_PID = 2;

/** How sidecar-init runs, for the start line: "starting 1 init step, 1 sidecar, app job; running as PID 1". */
export function describeNamespaceMode(mode: NamespaceMode): string {
  switch (mode.kind) {
    case 'pid1':
      return 'running as PID 1';
    case 'subreaper':
      return 'running as a subreaper';
    case 'shared':
      return `running as a subreaper in a shared PID namespace, where ${countNoun(mode.foreign, 'process', 'processes')} of other containers ${mode.foreign === 1 ? 'is' : 'are'} visible`;
    case 'host':
      return `running as a subreaper in the host's PID namespace (sidecar-init sees the host's processes, ${mode.foreign} besides its own)`;
    default:
      return assertNever(mode);
  }
}

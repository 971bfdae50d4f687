import { type FoundProcess, type ProcessMatch, type ProcessSearch, truncateComm } from '../plan/process-match.ts';
import {
  isLiveEntry,
  listOwnLineage,
  type ProcEntry,
  parseProcStat,
  parseStartTime,
  readEachProcess,
  readProcFile,
  readProcFileStart,
} from '../os/proc-table.ts';

// Finds processes of other containers in a shared-process-namespace pod. Only
// world-readable /proc files are read (stat, cmdline, status): a sibling
// container's proxy runs as another user, and exe, root and environ of another
// user's process need ptrace rights that a Kubernetes container does not have.
// A search is one pass of the process table reader (src/os/proc-table.ts),
// which lets the event loop turn between slices, and a cmdline pattern runs in
// linear time (src/plan/linear-pattern.ts): whatever the other processes of
// the pod are called, a search cannot hold PID 1.

export interface FindOptions {
  /** Never matched, nor its ancestors or descendants: sidecar-init itself (default process.pid). */
  readonly selfPid?: number;
}

/** At most this much of a command line goes into a log line. */
const CMDLINE_LOG_CHARS = 120;

export function isEmptyMatcher(match: Omit<ProcessMatch, 'maxMatches'>): boolean {
  return match.comm === undefined && match.cmdline === undefined && match.uid === undefined;
}

/**
 * Every live process that matches, except kernel threads (never a container's
 * process) and sidecar-init, its ancestors and everything it started:
 * `--external x=cmdline:envoy` is in sidecar-init's own cmdline, and a sidecar
 * it runs is not another container's process. Zombies are dead and do not
 * count. A process that exits while we read it is skipped.
 */
export async function searchProcesses(match: ProcessMatch, options: FindOptions = {}): Promise<ProcessSearch> {
  if (isEmptyMatcher(match)) return { kind: 'none' };
  const selfPid = options.selfPid ?? process.pid;
  const comm = match.comm === undefined ? undefined : truncateComm(match.comm);
  const seen = await readEachProcess((pid) => readCandidate(pid, match, comm));
  const table = seen.map(({ entry }) => entry);
  const ours = listOwnLineage(selfPid, table);
  const processes = seen.flatMap(({ found }) => (found === undefined || ours.has(found.pid) ? [] : [found]));
  if (processes.length === 0) return { kind: 'none' };
  const independent = countIndependent(processes, table);
  return independent > match.maxMatches ? { kind: 'too-many', processes, independent } : { kind: 'found', processes };
}

/** The live matches of a search (none for a refused one). */
export function foundIn(search: ProcessSearch): readonly FoundProcess[] {
  return search.kind === 'found' ? search.processes : [];
}

/** For a log line: PID, comm and the command line, quoted (control characters escaped) and cut. */
export function describeFound(processes: readonly FoundProcess[]): string {
  return processes
    .map(({ pid, comm, cmdline, uid }) => {
      const shown = cmdline.length > CMDLINE_LOG_CHARS ? `${cmdline.slice(0, CMDLINE_LOG_CHARS)}…` : cmdline;
      return `PID ${pid} ${JSON.stringify(comm)} UID ${uid} cmdline ${JSON.stringify(shown)}`;
    })
    .join(', ');
}

/**
 * How much of a command line a `cmdline:` pattern sees: its first 64 KiB. Any
 * process can exec with megabytes of arguments, and even the linear-time
 * engine's time grows with it over an unanchored pattern, at every search.
 */
export const CMDLINE_MATCH_BYTES = 64 * 1024;

/** Arguments joined by spaces, the first CMDLINE_MATCH_BYTES of them; a kernel thread or a zombie (empty cmdline) reads as "". */
export function readCmdline(pid: number): string {
  const raw = readProcFileStart(pid, 'cmdline', CMDLINE_MATCH_BYTES);
  return (raw.endsWith('\0') ? raw.slice(0, -1) : raw).replaceAll('\0', ' ');
}

/** Its stat always (the table), its other files only as far as the match needs them. */
function readCandidate(pid: number, match: ProcessMatch, comm: string | undefined): { entry: ProcEntry; found?: FoundProcess } | undefined {
  const stat = readProcFile(pid, 'stat');
  const entry = parseProcStat(stat);
  if (entry === undefined) return undefined;
  // stat's comm is the kernel's, whole: it ends at the line's last ')', which no later field has.
  if (entry.kernelThread || !isLiveEntry(entry) || (comm !== undefined && entry.comm !== comm)) return { entry };
  const cmdline = readCmdline(pid);
  if (match.cmdline !== undefined && !match.cmdline.regex.test(cmdline)) return { entry };
  const uid = readUid(pid);
  if (match.uid !== undefined && uid !== match.uid) return { entry };
  // Its files were read one by one: they are one process's only if none exited and gave its PID away meanwhile.
  const startTime = parseStartTime(stat);
  if (startTime === undefined || parseStartTime(readProcFile(pid, 'stat')) !== startTime) return { entry };
  return { entry, found: { pid, ppid: entry.ppid, comm: entry.comm, cmdline, uid, startTime } };
}

/**
 * Whether PID is still the process a search found: the same start time, name,
 * UID and command line, and the command line still matches. Called with a
 * pidfd open on PID: a match then means the pidfd is of that very process.
 */
export function isStillTheProcess(found: FoundProcess, match: ProcessMatch): boolean {
  try {
    const stat = readProcFile(found.pid, 'stat');
    return (
      parseStartTime(stat) === found.startTime &&
      parseProcStat(stat)?.comm === found.comm &&
      readUid(found.pid) === found.uid &&
      readCmdline(found.pid) === found.cmdline &&
      (match.cmdline === undefined || match.cmdline.regex.test(found.cmdline))
    );
  } catch {
    return false;
  }
}

/** Matches none of whose ancestors is itself a match: a proxy and the workers it forked count once. */
function countIndependent(processes: readonly FoundProcess[], table: readonly ProcEntry[]): number {
  const matched = new Set(processes.map(({ pid }) => pid));
  const parentOf = new Map(table.map((entry) => [entry.pid, entry.ppid]));
  let independent = 0;
  for (const found of processes) {
    let underAMatch = false;
    const visited = new Set<number>();
    for (let pid = found.ppid; pid > 0 && !visited.has(pid); pid = parentOf.get(pid) ?? 0) {
      visited.add(pid);
      if (matched.has(pid)) {
        underAMatch = true;
        break;
      }
    }
    if (!underAMatch) independent += 1;
  }
  return independent;
}

function readUid(pid: number): number {
  const status = readProcFile(pid, 'status');
  const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
  if (uid === undefined) throw new Error(`/proc/${pid}/status has no Uid: line`);
  return Number(uid);
}

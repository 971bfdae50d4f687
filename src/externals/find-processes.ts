import { readFileSync, readdirSync } from 'node:fs';
import { type ProcEntry, listDescendants, parseProcStat } from '../process/proc-table.ts';

// Finds processes of other containers in a shared-process-namespace pod. Only
// world-readable /proc files are read (stat, comm, cmdline, status): a sibling
// container's proxy runs as another user, and exe, root and environ of another
// user's process need ptrace rights that a Kubernetes container does not have.
// Reads are synchronous: a pod has tens of processes, and one pass over 1,000
// took 25-33 ms (DESIGN §2), well inside one probe period.

/** All given fields must match; an empty matcher matches nothing (see isEmptyMatcher). */
export interface ProcessMatcher {
  /** Exact /proc/PID/comm: the kernel truncates it to 15 bytes, so compare with the first 15. */
  readonly comm?: string;
  /** Tested against the arguments joined by single spaces (the NULs of /proc/PID/cmdline). */
  readonly cmdline?: RegExp;
  /** The real UID (first field of Uid: in /proc/PID/status). */
  readonly uid?: number;
}

export interface FoundProcess {
  readonly pid: number;
  readonly comm: string;
  readonly cmdline: string;
  readonly uid: number;
}

/** The longest comm the kernel keeps (TASK_COMM_LEN - 1). */
export const COMM_MAX_BYTES = 15;

const PID_NAME = /^[0-9]+$/;

export function isEmptyMatcher(matcher: ProcessMatcher): boolean {
  return matcher.comm === undefined && matcher.cmdline === undefined && matcher.uid === undefined;
}

/** What a user wrote as comm, as the kernel stores it: cut to 15 bytes. */
export function truncateComm(comm: string): string {
  const bytes = Buffer.from(comm, 'utf8');
  return bytes.length <= COMM_MAX_BYTES ? comm : bytes.subarray(0, COMM_MAX_BYTES).toString('utf8');
}

export function describeMatcher(matcher: ProcessMatcher): string {
  const parts: string[] = [];
  if (matcher.comm !== undefined) parts.push(`comm ${matcher.comm}`);
  if (matcher.cmdline !== undefined) parts.push(`cmdline /${matcher.cmdline.source}/`);
  if (matcher.uid !== undefined) parts.push(`uid ${matcher.uid}`);
  return parts.join(', ');
}

export interface FindOptions {
  /** Never matched, nor its ancestors or descendants: sidecar-init itself (default process.pid). */
  readonly selfPid?: number;
}

/**
 * Every live process that matches, except sidecar-init, its ancestors and
 * everything it started: `--external x=cmdline:envoy` is in sidecar-init's own
 * cmdline, and a sidecar it runs is not another container's process. Zombies
 * are dead and do not count. A process that exits while we read it is skipped.
 */
export function findProcesses(matcher: ProcessMatcher, options: FindOptions = {}): FoundProcess[] {
  if (isEmptyMatcher(matcher)) return [];
  const selfPid = options.selfPid ?? process.pid;
  const table = readStats();
  const excluded = excludedPids(selfPid, table);
  const comm = matcher.comm === undefined ? undefined : truncateComm(matcher.comm);
  const found: FoundProcess[] = [];
  for (const entry of table) {
    if (excluded.has(entry.pid) || entry.state === 'Z' || entry.state === 'X') continue;
    const candidate = readCandidate(entry, matcher, comm);
    if (candidate !== undefined) found.push(candidate);
  }
  return found;
}

function readCandidate(entry: ProcEntry, matcher: ProcessMatcher, comm: string | undefined): FoundProcess | undefined {
  try {
    // comm from its own file, not from stat: the same bytes, but stat's
    // "(comm)" framing is ambiguous when comm itself has parentheses.
    const ownComm = readFileSync(`/proc/${entry.pid}/comm`, 'utf8').replace(/\n$/, '');
    if (comm !== undefined && ownComm !== comm) return undefined;
    const cmdline = readCmdline(entry.pid);
    if (matcher.cmdline !== undefined && !matcher.cmdline.test(cmdline)) return undefined;
    const uid = readUid(entry.pid);
    if (matcher.uid !== undefined && uid !== matcher.uid) return undefined;
    return { pid: entry.pid, comm: ownComm, cmdline, uid };
  } catch (error) {
    if (isVanished(error)) return undefined;
    throw error;
  }
}

/** Arguments joined by spaces; a kernel thread (empty cmdline) reads as "". */
export function readCmdline(pid: number): string {
  const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  return (raw.endsWith('\0') ? raw.slice(0, -1) : raw).replaceAll('\0', ' ');
}

function readUid(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^Uid:\s+(\d+)/m.exec(status);
  if (match?.[1] === undefined) throw new Error(`/proc/${pid}/status has no Uid: line`);
  return Number(match[1]);
}

function readStats(): ProcEntry[] {
  const entries: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!PID_NAME.test(name)) continue;
    try {
      const entry = parseProcStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (entry !== undefined) entries.push(entry);
    } catch (error) {
      if (!isVanished(error)) throw error;
    }
  }
  return entries;
}

/** selfPid, its ancestors (up to the namespace's root) and its descendants. */
function excludedPids(selfPid: number, table: readonly ProcEntry[]): Set<number> {
  const excluded = new Set<number>([selfPid]);
  for (const entry of listDescendants(selfPid, table)) excluded.add(entry.pid);
  const parentOf = new Map(table.map((entry) => [entry.pid, entry.ppid]));
  for (let pid = parentOf.get(selfPid); pid !== undefined && pid > 0 && !excluded.has(pid); pid = parentOf.get(pid)) {
    excluded.add(pid);
  }
  return excluded;
}

function isVanished(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  // ENOENT/ESRCH: exited and reaped while we read; EACCES: hidepid or a
  // process that became unreadable, which we cannot match either way.
  return code === 'ENOENT' || code === 'ESRCH' || code === 'EACCES';
}

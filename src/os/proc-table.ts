import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { errorCode } from '../support/error-code.ts';
import { monotonicMs } from '../support/monotonic-clock.ts';
import { nextTurn } from '../support/pause.ts';

// The one reader of the process table, for everything that needs it: the
// final sweep and the crash path (our descendants), the namespace mode at
// start, and externals (processes of other containers). Two rules hold for
// every read:
// - A process that cannot be read is skipped, never an error: it exited (and
//   was reaped) between the directory listing and the read (ENOENT, ESRCH), or
//   /proc is mounted with hidepid and it belongs to another user (EACCES).
// - A whole pass never holds the event loop for long: entries are read in
//   slices of at most SLICE_MS, with a turn of the event loop between them, so
//   a signal is handled within a slice however many processes the pod (or a
//   hostile neighbour) has. Reads are synchronous within a slice: one
//   /proc/N/stat costs microseconds, and 1,000 zombies took 25-33 ms in one
//   pass, which a promise per file would make several times slower.

const PID_NAME = /^[0-9]+$/;
/** The longest a pass reads before it lets the event loop turn. */
export const SLICE_MS = 4;
/** PF_KTHREAD in the flags field of /proc/PID/stat (include/linux/sched.h). */
const PF_KTHREAD = 0x0020_0000;

/** One process as /proc/PID/stat describes it (proc(5)). */
export interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  /** The one-letter state: R, S, D, T, t, Z (zombie), X (dead), I, … */
  readonly state: string;
  readonly comm: string;
  /** A kernel thread (PF_KTHREAD): never a process of a container, never ours to signal. */
  readonly kernelThread: boolean;
}

/**
 * Parses a /proc/PID/stat line: `pid (comm) state ppid pgrp session tty_nr
 * tpgid flags …`. comm is whatever the process named itself (up to 15 bytes,
 * spaces and parentheses allowed), so it ends at the LAST ')' of the line.
 */
export function parseProcStat(line: string): ProcEntry | undefined {
  const open = line.indexOf(' (');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const [state, ppidText, , , , , flagsText] = line.slice(close + 2).split(' ', 7);
  const pid = Number(line.slice(0, open));
  const ppid = Number(ppidText);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || state === undefined || state.length !== 1) return undefined;
  const flags = Number(flagsText);
  const kernelThread = Number.isInteger(flags) && (flags & PF_KTHREAD) !== 0;
  return { pid, ppid, state, comm: line.slice(open + 2, close), kernelThread };
}

/**
 * When the process of a /proc/PID/stat line started (field 22, clock ticks
 * since boot), as written: with the PID, what tells this process from another
 * that got its PID after it exited.
 */
export function parseStartTime(line: string): string | undefined {
  const close = line.lastIndexOf(')');
  if (close < 0) return undefined;
  const startTime = line.slice(close + 2).split(' ', STAT_START_TIME_INDEX + 1)[STAT_START_TIME_INDEX];
  return startTime !== undefined && /^\d+$/.test(startTime) ? startTime : undefined;
}

/** starttime's place among the fields after comm: field 22 of stat, state being field 3. */
const STAT_START_TIME_INDEX = 19;

/**
 * Calls `read` for every PID in /proc, slice by slice (see SLICE_MS), and
 * keeps what it returns. `read` reads that process's files with readProcFile;
 * a process that cannot be read is skipped.
 */
export async function readEachProcess<T>(read: (pid: number) => T | undefined): Promise<T[]> {
  const results: T[] = [];
  let sliceStartedAt = monotonicMs();
  for (const name of readdirSync('/proc')) {
    if (!PID_NAME.test(name)) continue;
    const result = readSkippingUnreadable(() => read(Number(name)));
    if (result !== undefined) results.push(result);
    if (monotonicMs() - sliceStartedAt >= SLICE_MS) {
      await nextTurn();
      sliceStartedAt = monotonicMs();
    }
  }
  return results;
}

/** Every process visible in /proc, read slice by slice. */
export function readProcTable(): Promise<ProcEntry[]> {
  return readEachProcess(readStatOf);
}

/**
 * The same table in one synchronous pass, for the one caller that cannot wait
 * for the event loop: the crash path, which kills everything it started and exits.
 */
export function readProcTableNow(): ProcEntry[] {
  const entries: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!PID_NAME.test(name)) continue;
    const entry = readSkippingUnreadable(() => readStatOf(Number(name)));
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}

/** One file of /proc/PID; throws what readFileSync throws (readEachProcess skips an unreadable process). */
export function readProcFile(pid: number, file: string): string {
  return readFileSync(`/proc/${pid}/${file}`, 'utf8');
}

let startBuffer = Buffer.alloc(0);

/**
 * The first maxBytes of one of a process's /proc files: what another process
 * controls (its cmdline may be megabytes) is read, and then matched, only as
 * far as that. Throws as readProcFile does.
 */
export function readProcFileStart(pid: number, file: string, maxBytes: number): string {
  const fd = openSync(`/proc/${pid}/${file}`, 'r');
  try {
    // One buffer for every read (they are synchronous), not one per process per search.
    if (startBuffer.length < maxBytes) startBuffer = Buffer.allocUnsafe(maxBytes);
    const buffer = startBuffer;
    let filled = 0;
    // /proc files hand out a page or so per read.
    for (let read = -1; read !== 0 && filled < maxBytes; filled += read) read = readSync(fd, buffer, filled, maxBytes - filled, null);
    return buffer.toString('utf8', 0, filled);
  } finally {
    closeSync(fd);
  }
}

/** A process's stat, or undefined if it has gone. */
export function readProcEntry(pid: number): ProcEntry | undefined {
  return readSkippingUnreadable(() => readStatOf(pid));
}

/**
 * The pids of this process's children, running or exited, from the kernel's
 * per-thread lists (/proc/self/task/TID/children): an orphan is re-parented to
 * whichever of our threads the kernel picks, so every thread's list is read.
 * Costs O(our children), not O(processes on the machine): the reaper reads it
 * inside a SIGCHLD handler.
 */
export function readChildPids(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync('/proc/self/task')) {
    // A thread that ended between readdir and read has no children to give.
    const text = readSkippingUnreadable(() => readFileSync(`/proc/self/task/${task}/children`, 'latin1'));
    for (const word of text?.split(' ') ?? []) if (word !== '') pids.push(Number(word));
  }
  return pids;
}

/** All transitive descendants of rootPid (not rootPid itself), zombies included. */
export function listDescendants(rootPid: number, table: readonly ProcEntry[]): ProcEntry[] {
  const childrenOf = new Map<number, ProcEntry[]>();
  for (const entry of table) {
    const siblings = childrenOf.get(entry.ppid);
    if (siblings === undefined) childrenOf.set(entry.ppid, [entry]);
    else siblings.push(entry);
  }
  const descendants: ProcEntry[] = [];
  const seen = new Set<number>([rootPid]);
  const pending = [rootPid];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    for (const child of childrenOf.get(pid) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      descendants.push(child);
      pending.push(child.pid);
    }
  }
  return descendants;
}

/** selfPid, its ancestors up to the namespace's root, and its descendants: what is ours, not another container's. */
export function listOwnLineage(selfPid: number, table: readonly ProcEntry[]): Set<number> {
  const lineage = new Set<number>([selfPid, ...listDescendants(selfPid, table).map((entry) => entry.pid)]);
  const parentOf = new Map(table.map((entry) => [entry.pid, entry.ppid]));
  for (let pid = parentOf.get(selfPid); pid !== undefined && pid > 0 && !lineage.has(pid); pid = parentOf.get(pid)) lineage.add(pid);
  return lineage;
}

/** Running or sleeping: not a zombie waiting to be reaped, not already dead. */
export function isLiveEntry(entry: ProcEntry): boolean {
  return entry.state !== 'Z' && entry.state !== 'X';
}

export function isAlive(pid: number): boolean {
  const entry = readProcEntry(pid);
  return entry !== undefined && isLiveEntry(entry);
}

function readStatOf(pid: number): ProcEntry | undefined {
  return parseProcStat(readProcFile(pid, 'stat'));
}

/** The one error policy: a process that cannot be read is skipped (see the top of this file); anything else is thrown. */
function readSkippingUnreadable<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ESRCH' || code === 'EACCES') return undefined;
    throw error;
  }
}

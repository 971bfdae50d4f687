import { readFileSync, readdirSync } from 'node:fs';

const PID_NAME = /^[0-9]+$/;

/** One process as /proc/PID/stat describes it (proc(5)). */
export interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  /** The one-letter state: R, S, D, T, t, Z (zombie), X (dead), I, … */
  readonly state: string;
  readonly comm: string;
}

/**
 * Parses the start of a /proc/PID/stat line: `pid (comm) state ppid …`.
 * comm is whatever the process named itself (up to 15 bytes, spaces and
 * parentheses allowed), so it ends at the LAST ')' of the line.
 */
export function parseProcStat(line: string): ProcEntry | undefined {
  const open = line.indexOf(' (');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const [state, ppidText] = line.slice(close + 2).split(' ', 2);
  const pid = Number(line.slice(0, open));
  const ppid = Number(ppidText);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || state === undefined || state.length !== 1) return undefined;
  return { pid, ppid, state, comm: line.slice(open + 2, close) };
}

/**
 * Every process visible in /proc. Sync reads of just /proc/N/stat: one pass
 * over 1,000 zombies took 25-33 ms (DESIGN §2).
 */
export function readProcTable(): ProcEntry[] {
  const entries: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!PID_NAME.test(name)) continue;
    const entry = readProcEntry(name);
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}

/**
 * The pids of this process's children, running or exited, from the kernel's
 * per-thread lists (/proc/self/task/TID/children): an orphan is re-parented to
 * whichever of our threads the kernel picks, so every thread's list is read.
 * Costs O(our children), not O(processes on the machine).
 */
export function readChildPids(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync('/proc/self/task')) {
    let text: string;
    try {
      text = readFileSync(`/proc/self/task/${task}/children`, 'latin1');
    } catch (error) {
      // A thread that ended between readdir and read.
      if (isVanished(error)) continue;
      throw error;
    }
    for (const word of text.split(' ')) if (word !== '') pids.push(Number(word));
  }
  return pids;
}

/** All transitive descendants of rootPid (not rootPid itself), zombies included. */
export function listDescendants(rootPid: number, table: readonly ProcEntry[] = readProcTable()): ProcEntry[] {
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

/** Running or sleeping: not a zombie waiting to be reaped, not already dead. */
export function isLiveEntry(entry: ProcEntry): boolean {
  return entry.state !== 'Z' && entry.state !== 'X';
}

export function isAlive(pid: number): boolean {
  const entry = readProcEntry(String(pid));
  return entry !== undefined && isLiveEntry(entry);
}

function readProcEntry(pid: string): ProcEntry | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch (error) {
    // The process exited (and was reaped) between readdir and read.
    if (isVanished(error)) return undefined;
    throw error;
  }
}

function isVanished(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ESRCH';
}

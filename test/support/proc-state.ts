import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const WAIT_MS = 20_000;
const POLL_MS = 10;

/** The state letter of /proc/PID/stat (R, S, T for stopped, Z…); undefined once it is gone. */
export function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** The parent's PID of /proc/PID/stat (its second field after the command name). */
export function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Resolves once PID is stopped (SIGSTOP, SIGTSTP). Polls /proc, bounded: the kernel tells only the parent. */
export async function waitForStopped(pid: number): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (processState(pid) !== 'T') {
    if (Date.now() > deadline) throw new Error(`process ${pid} never stopped (state ${processState(pid) ?? 'gone'})`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Resolves once PID is a zombie: dead, its status not yet collected by its parent. Polls /proc, bounded. */
export async function waitForZombie(pid: number): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (processState(pid) !== 'Z') {
    if (Date.now() > deadline) throw new Error(`process ${pid} never became a zombie (state ${processState(pid) ?? 'gone'})`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

const CLOCK_TICKS_PER_S = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/**
 * The CPU time a process has spent, user and system (utime + stime of
 * /proc/PID/stat), in ms: all its threads, or one (TID). Unlike a wall-clock
 * figure, other work on the machine does not add to it.
 */
export function cpuMs(pid: number, tid?: number): number {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may itself hold spaces: state is the first, utime the 12th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S) * 1_000;
}

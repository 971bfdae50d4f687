import { readdirSync, readFileSync } from 'node:fs';
import { MARKER_VARIABLE } from './supervisor.ts';

/** How long a process that was just killed may take to disappear from /proc. */
const GONE_WITHIN_MS = 3_000;
const POLL_MS = 20;

/** PIDs of live (non-zombie) processes whose environment carries the run's marker. */
export function findMarkedProcesses(marker: string): number[] {
  const needle = `${MARKER_VARIABLE}=${marker}`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (isZombie(Number(entry))) continue;
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (environ.split('\0').includes(needle)) found.push(Number(entry));
    } catch {
      // The process ended while we looked: that is what we want.
    }
  }
  return found;
}

function isZombie(pid: number): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
}

/**
 * Waits until no process of this run is alive and returns what is still alive
 * after the bound (an empty list is the pass). Polls, because there is no event
 * for "a process that is not my child died".
 */
export async function waitForNoLeftovers(marker: string): Promise<number[]> {
  const deadline = Date.now() + GONE_WITHIN_MS;
  for (;;) {
    const alive = findMarkedProcesses(marker);
    if (alive.length === 0 || Date.now() > deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Cleanup for afterEach: SIGKILL whatever of a run survived, by PID. */
export function killMarkedProcesses(marker: string): void {
  for (const pid of findMarkedProcesses(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

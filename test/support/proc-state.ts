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

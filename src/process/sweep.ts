import { isLiveEntry, listDescendants, readProcTable } from '../os/proc-table.ts';
import type { Reaper } from './reaper.ts';
import { monotonicMs } from '../support/monotonic-clock.ts';
import { errorCode } from '../support/error-code.ts';
import { needsContinue } from '../plan/signal-sets.ts';
import { pause } from '../support/pause.ts';

// There is no event for "a process that is not our child died", so the sweep
// polls /proc; at this interval a pass costs well under a millisecond per
// dozen processes.
const SWEEP_POLL_MS = 20;
// After SIGKILL the kernel still has to tear each process down (and re-parent
// its children to us); bound that wait so an unkillable (D state) process
// cannot hold the supervisor's exit forever.
const KILL_SETTLE_MS = 1_000;

export interface SweepOptions {
  readonly reaper: Reaper;
  /** How long SIGTERM gets before SIGKILL. */
  readonly graceMs: number;
  /** Aborted (a second stop signal): what is left of the grace is skipped, and SIGKILL goes out at once. */
  readonly hurry?: AbortSignal;
  /** PIDs to leave alone (their descendants are still swept). */
  readonly exclude?: ReadonlySet<number>;
}

export interface SweepResult {
  /** Descendants that ended within the grace after SIGTERM. */
  readonly terminated: number;
  /** Descendants still alive after the grace to which SIGKILL was delivered (not those gone before it could be). */
  readonly killed: number;
}

/**
 * Ends every live descendant of this process, so nothing the supervisor spawned
 * or adopted outlives it: SIGTERM, up to graceMs, SIGKILL, then reap.
 * Descendants that appear meanwhile (forked while shutting down) are included.
 */
export async function sweepDescendants({ reaper, graceMs, hurry, exclude = new Set() }: SweepOptions): Promise<SweepResult> {
  const sentTerm = new Set<number>();
  const sentKill = new Set<number>();
  // A kill counts once the kernel took it: one that found the process already gone (ESRCH) killed nothing.
  const killed = new Set<number>();
  let graceEnd = monotonicMs() + graceMs;
  // Counted from the first SIGKILL pass, never from the grace's end: a pass
  // that overran both (the loop held by a long collection or a flood) still
  // kills what is left before it gives up waiting.
  let killEnd = Number.POSITIVE_INFINITY;
  for (;;) {
    reaper.reapZombies();
    const live = listDescendants(process.pid, await readProcTable()).filter((entry) => isLiveEntry(entry) && !exclude.has(entry.pid));
    const now = monotonicMs();
    if (hurry?.aborted === true && now < graceEnd) graceEnd = now;
    if (live.length === 0 || now >= killEnd) break;
    if (now >= graceEnd && killEnd === Number.POSITIVE_INFINITY) killEnd = now + KILL_SETTLE_MS;
    const [signal, sent] = now < graceEnd ? (['SIGTERM', sentTerm] as const) : (['SIGKILL', sentKill] as const);
    const fresh = live.map(({ pid }) => pid).filter((pid) => !sent.has(pid));
    for (const pid of fresh) sent.add(pid);
    const delivered = signalEach(fresh, signal);
    if (signal === 'SIGKILL') for (const pid of delivered) killed.add(pid);
    // Cut short if `hurry` is aborted meanwhile (never busy-waits once it is: the grace is then over).
    await pause(SWEEP_POLL_MS, hurry?.aborted === true ? undefined : hurry);
  }
  // The last ones may have become our zombies after the pass above.
  reaper.reapZombies();
  const terminated = [...sentTerm].filter((pid) => !sentKill.has(pid)).length;
  return { terminated, killed: killed.size };
}

/** The PIDs the signal was delivered to: not those gone between the /proc read and the kill. */
export function signalEach(pids: readonly number[], signal: NodeJS.Signals): number[] {
  return pids.filter((pid) => deliverSignal(pid, signal));
}

function deliverSignal(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
  } catch (error) {
    // Gone between the /proc read and the kill: that is what we wanted.
    if (errorCode(error) !== 'ESRCH') throw error;
    return false;
  }
  try {
    // A stopped leftover would hold the SIGTERM until the SIGKILL (needsContinue).
    if (needsContinue(signal)) process.kill(pid, 'SIGCONT');
  } catch (error) {
    // Ended by the signal itself before the SIGCONT: delivered all the same.
    if (errorCode(error) !== 'ESRCH') throw error;
  }
  return true;
}

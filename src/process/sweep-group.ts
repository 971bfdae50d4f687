import { monotonicMs } from '../support/monotonic-clock.ts';
import { errorCode } from '../support/error-code.ts';
import { pause } from '../support/pause.ts';

// What a run left in its process group after its leader exited: what it forked
// into the background (`worker &`) and never waited for, now orphans that
// sidecar-init adopted. They keep the group the leader made with setsid()
// (spawn.ts), whose id is the leader's PID; the kernel hands that id to no new
// process while any member lives, zombies included, so signalling the group
// reaches only them. Processes that made their own session (setsid, daemons)
// left the group; the final sweep ends those (sweep.ts).

/** There is no event for "a process that is not our child died": poll, as the final sweep does. */
const GROUP_POLL_MS = 20;
/** After SIGKILL the kernel still tears each member down and the reaper reaps it; an unkillable one (D state) must not hold a restart forever. */
const KILL_SETTLE_MS = 1_000;

/**
 * empty: nothing was left. terminated: gone after SIGTERM. killed: gone after
 * SIGKILL. left: still there when the bounds ran out (unkillable, or aborted).
 */
export type GroupSweepOutcome = 'empty' | 'terminated' | 'killed' | 'left';

/**
 * Ends every process left in group `pgid`: SIGTERM, up to graceMs for them to
 * go, SIGKILL, up to KILL_SETTLE_MS more. Gone means reaped: kill(-pgid, 0)
 * fails with ESRCH only once no member, not even a zombie, is left.
 */
export async function sweepProcessGroup(pgid: number, graceMs: number, abort: AbortSignal): Promise<GroupSweepOutcome> {
  if (!signalGroup(pgid, 0)) return 'empty';
  signalGroup(pgid, 'SIGTERM');
  // Stopped members would hold the SIGTERM until the SIGKILL (needsContinue in plan/signal-sets.ts).
  signalGroup(pgid, 'SIGCONT');
  if (await waitForEmpty(pgid, graceMs, abort)) return 'terminated';
  if (abort.aborted) return 'left';
  signalGroup(pgid, 'SIGKILL');
  return (await waitForEmpty(pgid, KILL_SETTLE_MS, abort)) ? 'killed' : 'left';
}

async function waitForEmpty(pgid: number, ms: number, abort: AbortSignal): Promise<boolean> {
  const end = monotonicMs() + ms;
  while (monotonicMs() < end && !abort.aborted) {
    await pause(GROUP_POLL_MS, abort);
    if (!signalGroup(pgid, 0)) return true;
  }
  return !signalGroup(pgid, 0);
}

/** Whether the group still has a member: false once it is empty (ESRCH). A member we may not signal (EPERM) still counts. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ESRCH') return false;
    if (errorCode(error) === 'EPERM') return true;
    throw error;
  }
}

import { isLiveEntry, listDescendants, readProcTableNow } from '../os/proc-table.ts';

/**
 * The last resort when the supervisor itself fails: SIGKILL every live
 * descendant at once, synchronously, so a crash of sidecar-init cannot leave
 * sidecars running in their own sessions (and a Job hanging). Returns how many
 * were signalled.
 */
export function killDescendantsNow(): number {
  let killed = 0;
  for (const entry of listDescendants(process.pid, readProcTableNow())) {
    if (!isLiveEntry(entry)) continue;
    try {
      process.kill(entry.pid, 'SIGKILL');
      killed += 1;
    } catch {
      // Gone already: that is the point.
    }
  }
  return killed;
}

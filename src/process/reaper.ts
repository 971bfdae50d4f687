import type { ExitStatus } from '../plan/exit-status.ts';
import type { NativeProcessApi } from './native.ts';
import { decodeWaitStatus } from './native.ts';
import { readChildPids } from './proc-table.ts';

export type ReaperMode = 'pid1' | 'subreaper';

export interface ReapedOrphan {
  readonly pid: number;
  readonly status: ExitStatus;
}

export interface ReaperOptions {
  readonly native: NativeProcessApi;
  /** spawn.ts's ownedPids: libuv waits for these itself; reaping one would steal its exit status from libuv. */
  readonly ownedPids: ReadonlySet<number>;
  /** spawn.ts's claimedPids: children forked by the native part; their status goes to the callback, not to onReaped. */
  readonly claimedPids?: ReadonlyMap<number, (status: ExitStatus) => void>;
  /** Called after each pass that reaped something; the reaper does not log. */
  readonly onReaped?: (orphans: readonly ReapedOrphan[]) => void;
  /**
   * A pass that failed (say /proc unreadable). PID 1 must not die of it: the
   * next SIGCHLD tries again, so the caller only reports it.
   */
  readonly onError?: (error: unknown) => void;
}

export interface Reaper {
  readonly mode: ReaperMode;
  /** Becomes a subreaper (unless PID 1) and reaps adopted orphans on every SIGCHLD. */
  start(): void;
  stop(): void;
  /** One pass now: waits for every zombie that is our child and not owned by libuv. */
  reapZombies(): readonly ReapedOrphan[];
}

export function createReaper({ native, ownedPids, claimedPids, onReaped, onError }: ReaperOptions): Reaper {
  // The kernel re-parents every orphan in the namespace to PID 1; anywhere else
  // they go to the nearest subreaper, so we must ask to be one.
  const mode: ReaperMode = process.pid === 1 ? 'pid1' : 'subreaper';
  let listening = false;

  // The kernel hands us our exited children one at a time (waitid WNOWAIT, which
  // reaps nothing), so a pass costs two syscalls per zombie and nothing per
  // live process. A zombie libuv owns is left for libuv; as the kernel would
  // keep showing it first, the rest of that pass walks our children lists
  // instead (only when one of our spawned processes has just exited and libuv
  // has not handled its SIGCHLD yet).
  function reapZombies(): readonly ReapedOrphan[] {
    const reaped: ReapedOrphan[] = [];
    const reap = (pid: number): boolean => {
      const raw = native.reapPid(pid);
      if (raw === undefined) return false;
      const status = decodeWaitStatus(raw);
      const owner = claimedPids?.get(pid);
      if (owner === undefined) reaped.push({ pid, status });
      else owner(status);
      return true;
    };
    let blockedByOwned = false;
    for (let pid = native.peekZombie(); pid !== undefined; pid = native.peekZombie()) {
      if (ownedPids.has(pid) || !reap(pid)) {
        blockedByOwned = true;
        break;
      }
    }
    if (blockedByOwned) {
      for (const pid of readChildPids()) if (!ownedPids.has(pid)) reap(pid);
    }
    if (reaped.length > 0) onReaped?.(reaped);
    return reaped;
  }

  // A pass runs right in the SIGCHLD callback: one pass reaps every zombie
  // present, and a signal that finds none costs one waitid. Deferring the pass
  // (setImmediate) to share it among a burst's signals cost more than it saved:
  // in a 4,000-orphan storm it made PID 1 spend about a third more CPU.
  function handleSigchld(): void {
    try {
      reapZombies();
    } catch (error) {
      onError?.(error);
    }
  }

  return {
    mode,
    start() {
      if (listening) return;
      if (mode === 'subreaper') native.setChildSubreaper();
      process.on('SIGCHLD', handleSigchld);
      listening = true;
      // Orphans that died before we listened signalled no one who cared.
      handleSigchld();
    },
    stop() {
      process.off('SIGCHLD', handleSigchld);
      listening = false;
    },
    reapZombies,
  };
}

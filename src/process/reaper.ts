import type { ExitStatus } from '../plan/exit-status.ts';
import type { ChildWatchApi, ReaperApi } from '../os/addon.ts';
import { decodeWaitStatus } from '../os/native.ts';
import { readChildPids } from '../os/proc-table.ts';

export type ReaperMode = 'pid1' | 'subreaper';

export interface ReapedOrphan {
  readonly pid: number;
  readonly status: ExitStatus;
}

export interface ReaperOptions {
  readonly native: ReaperApi & ChildWatchApi;
  /** child-registry.ts's libuvChildren: libuv waits for these itself; reaping one would steal its exit status from libuv. */
  readonly libuvChildren: ReadonlySet<number>;
  /** child-registry.ts's nativeChildren: children forked by the native part; their status goes to the callback, not to onReaped. */
  readonly nativeChildren?: ReadonlyMap<number, (status: ExitStatus) => void>;
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

/**
 * While orphans keep dying, what the native pass reaped reaches JavaScript at
 * most this often (after a quiet spell, at once; a native child's exit, at
 * once): JavaScript only counts orphans, and each call into it under
 * --jitless costs more than reaping a few dozen of them (4,000 staggered
 * orphans: about a fifth less PID-1 CPU at 100 ms than at 10).
 */
const HAND_OVER_INTERVAL_MS = 100;
const NO_CLAIMS: ReadonlyMap<number, unknown> = new Map();

export function createReaper({ native, libuvChildren, nativeChildren, onReaped, onError }: ReaperOptions): Reaper {
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
      const owner = nativeChildren?.get(pid);
      if (owner === undefined) reaped.push({ pid, status });
      else owner(status);
      return true;
    };
    let blockedByOwned = false;
    for (let pid = native.peekZombie(); pid !== undefined; pid = native.peekZombie()) {
      if (libuvChildren.has(pid) || !reap(pid)) {
        blockedByOwned = true;
        break;
      }
    }
    if (blockedByOwned) {
      for (const pid of readChildPids()) if (!libuvChildren.has(pid)) reap(pid);
    }
    if (reaped.length > 0) onReaped?.(reaped);
    return reaped;
  }

  // The JavaScript pass: at start, for a child libuv owns that blocks the
  // native pass, and for the final sweep (reapZombies).
  function handleSigchld(): void {
    try {
      reapZombies();
    } catch (error) {
      onError?.(error);
    }
  }

  /**
   * What the native pass reaped: the native children's statuses to their
   * owners, the orphans reported. Already reaped: a callback that throws is
   * reported and the rest still handed over, never thrown into the addon.
   */
  function handOver(pairs: Int32Array): void {
    const reaped: ReapedOrphan[] = [];
    for (let index = 0; index + 1 < pairs.length; index += 2) {
      const pid = pairs[index] as number;
      const status = decodeWaitStatus(pairs[index + 1] as number);
      const owner = nativeChildren?.get(pid);
      if (owner === undefined) reaped.push({ pid, status });
      else reportingErrors(() => owner(status));
    }
    if (reaped.length > 0) reportingErrors(() => onReaped?.(reaped));
  }

  function reportingErrors(call: () => void): void {
    try {
      call();
    } catch (error) {
      onError?.(error);
    }
  }

  function onNativePass(pairs: Int32Array, blocked: boolean): void {
    handOver(pairs);
    // A child libuv owns stood first among the exited: this pass reaps the rest by pid.
    if (blocked) handleSigchld();
  }

  return {
    mode,
    start() {
      if (listening) return;
      if (mode === 'subreaper') native.setChildSubreaper();
      // Every SIGCHLD is handled in the native part (child-watch.c), a bounded
      // pass per turn of the loop, and JavaScript hears of it in batches.
      native.watchChildren(libuvChildren, nativeChildren ?? NO_CLAIMS, onNativePass, HAND_OVER_INTERVAL_MS);
      listening = true;
      // Orphans that died before we listened signalled no one who cared.
      handleSigchld();
    },
    stop() {
      if (!listening) return;
      listening = false;
      handOver(native.unwatchChildren());
    },
    reapZombies,
  };
}

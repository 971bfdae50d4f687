import type { ExitStatus } from './exit-status.ts';
import type { NativeProcessApi } from './native.ts';
import { decodeWaitStatus } from './native.ts';
import { readProcTable } from './proc-table.ts';

export type ReaperMode = 'pid1' | 'subreaper';

export interface ReapedOrphan {
  readonly pid: number;
  readonly status: ExitStatus;
}

export interface ReaperOptions {
  readonly native: NativeProcessApi;
  /** spawn.ts's ownedPids: libuv waits for these itself; reaping one would steal its exit status from libuv. */
  readonly ownedPids: ReadonlySet<number>;
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

export function createReaper({ native, ownedPids, onReaped, onError }: ReaperOptions): Reaper {
  // The kernel re-parents every orphan in the namespace to PID 1; anywhere else
  // they go to the nearest subreaper, so we must ask to be one.
  const mode: ReaperMode = process.pid === 1 ? 'pid1' : 'subreaper';
  let listening = false;
  let pendingPass: NodeJS.Immediate | undefined;

  function reapZombies(): readonly ReapedOrphan[] {
    const reaped: ReapedOrphan[] = [];
    for (const entry of readProcTable()) {
      if (entry.state !== 'Z' || entry.ppid !== process.pid || ownedPids.has(entry.pid)) continue;
      const raw = native.reapPid(entry.pid);
      if (raw !== undefined) reaped.push({ pid: entry.pid, status: decodeWaitStatus(raw) });
    }
    if (reaped.length > 0) onReaped?.(reaped);
    return reaped;
  }

  // SIGCHLDs arrive in bursts (one per orphan, and the kernel merges pending
  // ones anyway), while one pass reaps every zombie present. So a signal only
  // schedules a pass; those arriving before it runs share it, and those that
  // arrive while it runs are dispatched after it and schedule exactly one more.
  function handleSigchld(): void {
    pendingPass ??= setImmediate(() => {
      pendingPass = undefined;
      try {
        reapZombies();
      } catch (error) {
        onError?.(error);
      }
    });
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
      if (pendingPass !== undefined) clearImmediate(pendingPass);
      pendingPass = undefined;
    },
    reapZombies,
  };
}

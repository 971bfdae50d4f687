import type { Readable } from 'node:stream';

// Readiness a process reports itself, rather than readiness sidecar-init
// checks: systemd's notify socket (notify-channel.ts) or s6's notification
// descriptor (fd-channel.ts). One channel per run of a process: opened before
// the spawn (the process needs its address), attached to the spawned pid,
// closed when that run exits. The probe (latched-probe.ts) only reads its flag.

export interface ReadinessChannel {
  /** Added to the process's environment, e.g. NOTIFY_SOCKET. */
  readonly env: Readonly<Record<string, string>>;
  /** s6: the descriptor number at which the process gets the write end of a pipe. */
  readonly fd: number | undefined;
  /** The run's pid, once spawned; for fd, also the read end of its pipe. */
  attach(pid: number, pipe: Readable | undefined): void;
  /** The process has said it is ready (it never takes that back within a run). */
  readonly ready: boolean;
  /** Its latest STATUS= text, printable and bounded; undefined before any. */
  readonly status: string | undefined;
  /** Called once ready; returns how to stop listening. */
  onReady(listener: () => void): () => void;
  /** Releases the socket, its directory, the pipe and timers. Idempotent. */
  close(): void;
}

/** What the channel reports to the runner, which logs and dispatches. */
export interface ChannelEvents {
  onStatus(status: string): void;
  /** WATCHDOG=1 did not come in time, or WATCHDOG=trigger came: the liveness rule applies. */
  onWatchdogMissed(reason: string): void;
  /** A message from a process outside the run's process tree was dropped (reported once per run). */
  onForeignSender(pid: number, uid: number): void;
}

import { closeSync } from 'node:fs';
import { constants } from 'node:os';
import { errorCode } from '../support/error-code.ts';
import type { PidfdApi } from './addon.ts';
import { loadNativeProcessApi } from './native.ts';

// Signals a process we did not start, safely: /proc gives us a PID, and between
// reading /proc and kill(2) that process may exit and its PID go to another.
// A pidfd opened right after the match refers to the matched process for good;
// a signal through it after the process died fails with ESRCH instead of
// hitting the newcomer. (The window between reading /proc and pidfd_open is
// closed by re-checking the match after opening: see find-processes.ts.)

/** What a signal through a pidfd came to. */
export type SignalResult =
  | { readonly kind: 'sent' }
  /** The process is gone (or its PID was never there). */
  | { readonly kind: 'gone' }
  /** Another user's process and no CAP_KILL: the normal case for a sibling container's proxy. */
  | { readonly kind: 'not-permitted' };

/** An open handle on one process; close it when done (it is a file descriptor). */
export interface ProcessHandle {
  readonly pid: number;
  signal(signal: NodeJS.Signals | 0): SignalResult;
  close(): void;
}

export class PidfdError extends Error {
  readonly code = 'ERR_PIDFD';
}

/**
 * Opens a handle on pid, or returns undefined when that process is already
 * gone. Needs Linux 5.3 (pidfd_open); older kernels get a PidfdError that says so.
 */
export function openProcessHandle(pid: number, api: PidfdApi = loadNativeProcessApi()): ProcessHandle | undefined {
  let fd: number;
  try {
    fd = api.pidfdOpen(pid);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ESRCH') return undefined;
    if (code === 'ENOSYS')
      throw new PidfdError('pidfd_open is not available: sidecar-init needs Linux 5.3 or later to signal other containers’ processes', {
        cause: error,
      });
    throw error;
  }
  let open = true;
  return {
    pid,
    signal(signal) {
      if (!open) throw new PidfdError(`the handle on PID ${pid} is closed`);
      const number = signal === 0 ? 0 : constants.signals[signal];
      try {
        api.pidfdSendSignal(fd, number);
        return { kind: 'sent' };
      } catch (error) {
        switch (errorCode(error)) {
          case 'ESRCH':
            return { kind: 'gone' };
          case 'EPERM':
            return { kind: 'not-permitted' };
          default:
            throw error;
        }
      }
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

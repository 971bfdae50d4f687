import process from 'node:process';

// Child.exited settles only once the child's stdout and stderr pipes have closed
// (execa waits for its streams). A hook like `sh -c 'daemon &'` exits at once,
// but the daemon it leaves inherits the pipes and keeps them open, so `exited`
// would wait for the daemon and a finished hook would count as timed out. This
// notices the hook's own process is gone, so its leftovers can be killed and the
// pipes closed. A fallback only: most hooks settle through `exited` first.

/** How often the hook's pid is checked; bounds how late a hook with open pipes is seen to finish. */
export const EXIT_POLL_INTERVAL_MS = 50;

export interface ExitWatch {
  stop(): void;
}

/**
 * Calls onGone once `pid` no longer exists. libuv reaps its own children on
 * SIGCHLD, so "gone" means exited and reaped. The pid cannot be handed to a new
 * process while the hook's group still has members: Linux keeps a pid number
 * allocated while it names a process group.
 */
export function createExitWatch(pid: number, onGone: () => void): ExitWatch {
  const timer = setInterval(() => {
    if (exists(pid)) return;
    clearInterval(timer);
    onGone();
  }, EXIT_POLL_INTERVAL_MS);
  // Never the reason the supervisor stays up: the hook's own timeout bounds this.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

function exists(pid: number): boolean {
  try {
    // Signal 0: existence check only; a zombie still exists until libuv reaps it.
    return process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

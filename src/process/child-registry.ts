import type { ExitStatus } from '../plan/exit-status.ts';

// The two registries of this process's own children, one per rule the reaper
// (reaper.ts) follows; one registry each for the whole process.
//
// libuvChildren: children libuv started and waits for itself, long-lived ones
// (spawn.ts) and bounded commands (src/attempt/run-command.ts) alike. The
// reaper must never waitpid() one, or it would steal its exit status from
// libuv, whose 'exit' would then never come.
//
// nativeChildren: children the native part forked (the app on a terminal, see
// terminal.ts), which libuv does not know. The reaper waits for each and hands
// its status to the callback here instead of counting it as an orphan.
//
// A PID is added synchronously right after the spawn returns it. SIGCHLD is
// handled by a callback of the same event loop, so no reaper pass can run
// between the fork and the registration, however fast the child exits.

const libuv = new Set<number>();
export const libuvChildren: ReadonlySet<number> = libuv;

/** Call in the same tick libuv's spawn returned `pid`. */
export function addLibuvChild(pid: number): void {
  libuv.add(pid);
}

/** Call from the child's 'exit': libuv has reaped it. */
export function removeLibuvChild(pid: number): void {
  libuv.delete(pid);
}

const native = new Map<number, (status: ExitStatus) => void>();
export const nativeChildren: ReadonlyMap<number, (status: ExitStatus) => void> = native;

/** Call in the same tick the native fork returned `pid`; `onExit` gets the status the reaper collected. */
export function addNativeChild(pid: number, onExit: (status: ExitStatus) => void): void {
  native.set(pid, onExit);
}

/** Call from `onExit`: the reaper has reaped it. */
export function removeNativeChild(pid: number): void {
  native.delete(pid);
}

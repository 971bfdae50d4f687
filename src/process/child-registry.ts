import type { ExitStatus } from '../plan/exit-status.ts';

// The two registries of this process's own children, one per rule the reaper
// (reaper.ts) follows; one registry each for the whole process.
//
// libuvChildren: children libuv started and waits for itself: the bounded
// commands (exec probes, hooks, drains) execa runs (src/attempt/run-command.ts).
// The reaper must never waitpid() one, or it would steal its exit status from
// libuv, whose 'exit' would then never come.
//
// nativeChildren: every long-lived child (sidecars, init steps, the app), all
// forked by the native part (spawn.ts: piped or not, on a terminal or not),
// which libuv does not know. The reaper waits for each and hands its status to
// the callback here instead of counting it as an orphan.
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

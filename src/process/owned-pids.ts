// PIDs of children this process started that libuv still owns: the reaper
// (reaper.ts) must never waitpid() one, or it would steal its exit status from
// libuv, whose 'exit' would then never come. One registry for the whole
// process: long-lived children (spawn.ts) and bounded commands
// (src/attempt/run-command.ts) alike are libuv's children.
//
// A PID is claimed synchronously right after the spawn returns it. SIGCHLD is
// handled by a callback of the same event loop, so no reaper pass can run
// between the fork and the claim, however fast the child exits.

const owned = new Set<number>();
export const ownedPids: ReadonlySet<number> = owned;

/** Call in the same tick the spawn returned `pid`. */
export function claimPid(pid: number): void {
  owned.add(pid);
}

/** Call from the child's 'exit': libuv has reaped it. */
export function releasePid(pid: number): void {
  owned.delete(pid);
}

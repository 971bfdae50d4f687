// The native addon's API as TypeScript sees it, one interface per C part
// (src/os/native/addon.c defines them in this order).

/** The addon's fork and exec of a child in a session of its own (spawn.c). */
export interface NativeSpawnApi {
  /**
   * Once exec has succeeded: its pid, and in `pipes` the read end of a pipe
   * (non-blocking, close-on-exec, ours to close) for each descriptor of
   * `pipeTo` (1, 2, a readiness fd), whose write end the child has there.
   * Throws an Error whose code is the errno name (ENOENT, EACCES) and whose
   * syscall is the step that failed; no pipe is left open then. uid/gid -1: unchanged.
   */
  spawnChild(
    path: string,
    argv: string[],
    envp: string[],
    cwd: string,
    uid: number,
    gid: number,
    nullStdin: boolean,
    pipeTo: readonly number[],
  ): { readonly pid: number; readonly pipes: readonly number[] };
}

// The native addon's API as TypeScript sees it, one interface per C part
// (src/os/native/addon.c defines them in this order).

/**
 * What every fork of the addon takes (src/os/native/child-exec.h): the file
 * to execute (the name as execvp would pass it), its argv and exactly its
 * environment, its working directory, and the user (uid/gid -1: unchanged; a
 * gid clears the supplementary groups first).
 */
export interface NativeExecOptions {
  readonly path: string;
  readonly argv: readonly string[];
  readonly envp: readonly string[];
  readonly cwd: string;
  readonly uid: number;
  readonly gid: number;
}

/**
 * The step of a child's setup that failed, as the addon's Error names it in
 * `syscall` (child-exec.c): its descriptors ('pipes', 'stdin'), its working
 * directory ('cwd'), its user ('setgid', 'setuid'), or the exec itself.
 */
export type NativeSetupStep = 'pipes' | 'stdin' | 'cwd' | 'setgid' | 'setuid' | 'exec';

/** The addon's fork and exec of a child in a session of its own (spawn.c). */
export interface NativeSpawnApi {
  /**
   * Once exec has succeeded: its pid, and in `pipes` the read end of a pipe
   * (non-blocking, close-on-exec, ours to close) for each descriptor of
   * `pipeTo` (1, 2, a readiness fd), whose write end the child has there;
   * stdin from /dev/null when `nullStdin`, else inherited. Throws an Error
   * whose code is the errno name (ENOENT, EACCES) and whose syscall is the
   * step that failed (a NativeSetupStep, or 'pipe2' or 'fork' in the parent);
   * no pipe is left open then.
   */
  spawnChild(options: NativeExecOptions & { readonly nullStdin: boolean; readonly pipeTo: readonly number[] }): {
    readonly pid: number;
    readonly pipes: readonly number[];
  };
}

/** The addon's fork of the app on the terminal (terminal.c): the options of spawnForeground. */
export interface NativeForegroundOptions extends NativeExecOptions {
  /** The terminal. */
  readonly fd: number;
  /** A process group of its own made the foreground, or born in the caller's (foreground) group. */
  readonly ownGroup: boolean;
}

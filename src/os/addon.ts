// The native addon's API as TypeScript sees it: one interface per C part, in
// the order src/os/native/addon.c defines them, and `Addon`, all of them,
// which the loader (native.ts) returns once it has checked that every
// function of ADDON_FUNCTIONS is there. A part added in C is added here and
// to the table, or the addon's users cannot call it.

/** reaper.c: the subreaper, reaping one pid, peeking at a zombie, _exit. */
export interface ReaperApi {
  /** prctl(PR_SET_CHILD_SUBREAPER, 1): orphans of our descendants are re-parented to us. */
  setChildSubreaper(): void;
  /** waitpid(pid, WNOHANG) on that one pid: its raw wait status, or undefined while it runs or when it is not our child. */
  reapPid(pid: number): number | undefined;
  /**
   * waitid(P_ALL, WEXITED | WNOHANG | WNOWAIT): the pid of one exited child,
   * not reaped (its status stays for whoever owns it), or undefined when none.
   */
  peekZombie(): number | undefined;
  /**
   * _exit(code): ends the process without atexit handlers, so a thread-pool
   * write stuck on a stalled log pipe cannot hold the exit. Only after every
   * line of our own has been written (they are written synchronously).
   */
  exitNow(code: number): never;
}

/** child-watch.c: the reaper's pass on every SIGCHLD. */
export interface ChildWatchApi {
  /**
   * The pass on every SIGCHLD, in the native part (child-watch.c): every
   * exited child not in `libuvChildren` (libuv's) is reaped, and `onReaped` gets the
   * pairs [pid, raw status, …] at once after a quiet spell or when one of
   * `nativeChildren` is among them, else at most every intervalMs while more keep
   * dying; at once, with `blocked`, when a child of `libuvChildren` stands first among
   * the exited (the caller reaps the rest by pid).
   */
  watchChildren(
    libuvChildren: ReadonlySet<number>,
    nativeChildren: ReadonlyMap<number, unknown>,
    onReaped: (pairs: Int32Array, blocked: boolean) => void,
    intervalMs: number,
  ): void;
  /** Stops the watch; the pairs reaped and not yet handed over. */
  unwatchChildren(): Int32Array;
}

/** signal-forward.c: a signal for the app passed on from the signal handler. */
export interface SignalForwardApi {
  /**
   * The addon's handler for these signal numbers, installed on top of libuv's
   * (each must have a process.on listener already, or it throws): a signal
   * with a route is passed on from the handler itself and counted, and
   * `onForwarded` is called at most once per `windowMs`, that long after the
   * first count since the last takeForwardCounts (signal-forward.c).
   */
  forwardSignals(signals: readonly number[], onForwarded: () => void, windowMs: number): void;
  /** libuv's handlers back. */
  unforwardSignals(): void;
  /**
   * The route the handler sends along: `target` -pgid, pid (signalled through a
   * pidfd) or 0 (none), and pairs [signal, sent as, …]; every other signal is
   * the listener's. False when no pidfd could be opened for a pid (Linux < 5.3):
   * then no signal is routed.
   */
  setSignalRoute(target: number, routes: readonly number[]): boolean;
  /** The signals other JavaScript listens for too: the listeners hear of each of their deliveries, passed on or not. */
  setChainedSignals(signals: readonly number[]): void;
  /** One delivery of `signal` the listener heard of: true when the handler passed it on first (or found the app gone). */
  takeForwarded(signal: number): boolean;
  /** The deliveries of `signal` with no route handed to the listener since the last take (hand_over in signal-forward.c merges a flood into one per window); 0 for none. */
  takeHandedOver(signal: number): number;
  /** [signal, passed on, found the app gone, …] since the last take, in the order each signal first came. */
  takeForwardCounts(): number[];
}

/** pidfd.c: signalling processes sidecar-init never started, through a pidfd. */
export interface PidfdApi {
  /** pidfd_open(pid): a close-on-exec descriptor on that process; throws ESRCH when it is gone, ENOSYS before Linux 5.3. */
  pidfdOpen(pid: number): number;
  /** pidfd_send_signal(fd, signal): throws ESRCH when the process is gone, EPERM when it is not ours to signal. */
  pidfdSendSignal(fd: number, signal: number): void;
}

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

/** spawn.c: sidecars, init steps and the app, forked and exec'd (child-exec.c), in sessions of their own. */
export interface SpawnApi {
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

/** terminal.c: the app as the terminal's foreground group. */
export interface TerminalApi {
  /** SIGTTOU and SIGTTIN ignored from now on (terminal.c says why); loading the addon leaves them as they were. */
  ignoreTerminalStops(): void;
  /** tcgetpgrp(fd): the foreground group, 0 when our PID namespace cannot name it, negative when fd is not our controlling terminal. */
  foregroundGroup(fd: number): number;
  /** isatty(fd), without loading node:tty (which loads net and the streams). */
  isTerminal(fd: number): boolean;
  /** tcsetpgrp(fd, pgrp): the terminal's foreground given to that group. */
  giveTerminal(fd: number, pgrp: number): void;
  /** Forks and execs the app on the terminal fd, in a group of its own made the foreground when ownGroup; its pid. Throws as spawnChild does: the step that failed in `syscall`, its errno name in `code`. */
  spawnForeground(options: NativeForegroundOptions): number;
}

export interface Credentials {
  readonly pid: number;
  readonly uid: number;
  readonly gid: number;
}

export interface Datagram extends Credentials {
  readonly data: Buffer;
  /** Descriptors the sender attached (SCM_RIGHTS), already ours: close each once handled. */
  readonly fds: readonly number[];
  /** Longer than the receive buffer (4 KiB): the rest was dropped by the kernel. */
  readonly truncated: boolean;
}

export interface ReadableWatch {
  close(): void;
}

/**
 * unix-socket.c: what node:net and node:dgram cannot do with Unix sockets: a
 * datagram socket whose messages carry their sender's kernel-checked
 * credentials, a listening stream socket that does not load the cluster
 * module, the peer credentials of a stream connection, a connect that never
 * waits, and libuv watches (readable, writable) on a descriptor Node has no
 * handle type for.
 */
export interface UnixSocketApi {
  /** A non-blocking, close-on-exec datagram socket bound at path, with SO_PASSCRED on. */
  unixDgramBind(path: string): number;
  /** One waiting datagram, or undefined when none is; never blocks. */
  unixDgramReceive(fd: number): Datagram | undefined;
  /** A non-blocking, close-on-exec stream socket listening at path (node:net's listen would load cluster and child_process). */
  unixStreamListen(path: string, backlog: number): number;
  /** One waiting connection of a listening socket, non-blocking and close-on-exec, or undefined when none is; never blocks. */
  unixAccept(fd: number): number | undefined;
  /** SO_PEERCRED of a connected Unix stream socket: of the client on the server's side, of the listening server on the client's. */
  peerCredentials(fd: number): Credentials;
  /** Connects to the stream socket at path and closes at once; throws the connect's error (ECONNREFUSED: nobody listens). Never waits. */
  unixConnectAndClose(path: string): void;
  /** A stream socket connected to path, non-blocking and close-on-exec, nothing written yet; throws the connect's error. Never waits. */
  unixConnect(path: string): number;
  /** Calls onReadable on Node's loop whenever fd is readable, until close(); close it before the descriptor. */
  watchReadable(fd: number, onReadable: () => void): ReadableWatch;
  /** Calls onWritable on Node's loop whenever fd can take more bytes, until close(); close it before the descriptor. */
  watchWritable(fd: number, onWritable: () => void): ReadableWatch;
}

/** memory-trim.c: malloc's free pages back to the kernel once started. */
export interface MemoryTrimApi {
  /** malloc_trim(0): malloc's free pages back to the kernel; true when some were released. */
  trimMemory(): boolean;
}

/** process-self.c: what sidecar-init sets on its own process: its name, its parent-death signal. */
export interface ProcessSelfApi {
  /** prctl(PR_SET_NAME): the name ps, top and pgrep show (/proc/PID/comm), cut to 15 bytes; the arguments stay as they were. */
  setProcessName(name: string): void;
  /**
   * prctl(PR_SET_PDEATHSIG): the kernel sends this signal number when the
   * parent (strictly, the parent's thread that forked sidecar-init) exits. A
   * parent already gone sends nothing: compare process.ppid after it (parent-death.ts).
   */
  setParentDeathSignal(signal: number): void;
}

/** The whole addon: every part of addon.c's table. */
export type Addon = ReaperApi &
  ChildWatchApi &
  SignalForwardApi &
  PidfdApi &
  SpawnApi &
  TerminalApi &
  UnixSocketApi &
  MemoryTrimApi &
  ProcessSelfApi;

/** Each part by its name in ADDON_FUNCTIONS. */
interface AddonParts {
  readonly reaper: ReaperApi;
  readonly childWatch: ChildWatchApi;
  readonly signalForward: SignalForwardApi;
  readonly pidfd: PidfdApi;
  readonly spawn: SpawnApi;
  readonly terminal: TerminalApi;
  readonly unixSocket: UnixSocketApi;
  readonly memoryTrim: MemoryTrimApi;
  readonly processSelf: ProcessSelfApi;
}

/**
 * The functions each part defines, in addon.c's order: the loader checks every
 * one before it hands the addon out, so an addon built from other sources
 * fails at load with the names it lacks, not at its first call. A name that
 * is no function of its part, or a function left out of its row, does not
 * compile (listingEvery).
 */
export const ADDON_FUNCTIONS = listingEvery({
  reaper: ['setChildSubreaper', 'reapPid', 'peekZombie', 'exitNow'],
  childWatch: ['watchChildren', 'unwatchChildren'],
  signalForward: [
    'forwardSignals',
    'unforwardSignals',
    'setSignalRoute',
    'takeForwarded',
    'takeHandedOver',
    'setChainedSignals',
    'takeForwardCounts',
  ],
  pidfd: ['pidfdOpen', 'pidfdSendSignal'],
  spawn: ['spawnChild'],
  terminal: ['ignoreTerminalStops', 'foregroundGroup', 'isTerminal', 'giveTerminal', 'spawnForeground'],
  unixSocket: [
    'unixDgramBind',
    'unixDgramReceive',
    'unixStreamListen',
    'unixAccept',
    'peerCredentials',
    'unixConnectAndClose',
    'unixConnect',
    'watchReadable',
    'watchWritable',
  ],
  memoryTrim: ['trimMemory'],
  processSelf: ['setProcessName', 'setParentDeathSignal'],
});

type Rows = { readonly [Part in keyof AddonParts]: readonly (keyof AddonParts[Part])[] };
/** For each part, the functions its row leaves out (as `{ unlisted: names }`, which the row cannot be), or nothing. */
type Complete<Listed extends Rows> = {
  readonly [Part in keyof AddonParts]: [Exclude<keyof AddonParts[Part], Listed[Part][number]>] extends [never]
    ? unknown
    : { readonly unlisted: Exclude<keyof AddonParts[Part], Listed[Part][number]> };
};

function listingEvery<const Listed extends Rows>(rows: Listed & Complete<Listed>): Listed {
  return rows;
}

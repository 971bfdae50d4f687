import { readFileSync } from 'node:fs';
import { loadNativeProcessApi } from './native.ts';
import { parseProcStat } from './proc-table.ts';

// What node:net and node:dgram cannot do with Unix sockets, from the native
// addon (src/os/native/unix-socket.c): a datagram socket whose messages
// carry their sender's kernel-checked credentials, a listening stream socket
// that does not load the cluster module, the peer credentials of a stream
// connection, a connect that never waits, and libuv watches (readable,
// writable) on a descriptor Node has no handle type for.

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

export interface UnixSocketApi {
  /** A non-blocking, close-on-exec datagram socket bound at path, with SO_PASSCRED on. */
  unixDgramBind(path: string): number;
  /** One waiting datagram, or undefined when none is; never blocks. */
  unixDgramReceive(fd: number): Datagram | undefined;
  /** A non-blocking, close-on-exec stream socket listening at path (node:net's listen would load cluster and child_process). */
  unixStreamListen(path: string, backlog: number): number;
  /** One waiting connection of a listening socket, non-blocking and close-on-exec, or undefined when none is; never blocks. */
  unixAccept(fd: number): number | undefined;
  /** Connects to the stream socket at path and closes at once; throws the connect's error (ECONNREFUSED: nobody listens). Never waits. */
  unixConnectAndClose(path: string): void;
  /** A stream socket connected to path, non-blocking and close-on-exec, nothing written yet; throws the connect's error. Never waits. */
  unixConnect(path: string): number;
  /** SO_PEERCRED of a connected Unix stream socket: of the client on the server's side, of the listening server on the client's. */
  peerCredentials(fd: number): Credentials;
  /** Calls onReadable on Node's loop whenever fd is readable, until close(); close it before the descriptor. */
  watchReadable(fd: number, onReadable: () => void): ReadableWatch;
  /** Calls onWritable on Node's loop whenever fd can take more bytes, until close(); close it before the descriptor. */
  watchWritable(fd: number, onWritable: () => void): ReadableWatch;
}

export function loadUnixSocketApi(): UnixSocketApi {
  // The same addon as the reaper; its loader checks the reaper's functions.
  const api = loadNativeProcessApi() as unknown as Partial<UnixSocketApi>;
  if (
    typeof api.unixDgramBind !== 'function' ||
    typeof api.unixDgramReceive !== 'function' ||
    typeof api.unixStreamListen !== 'function' ||
    typeof api.unixAccept !== 'function' ||
    typeof api.unixConnectAndClose !== 'function' ||
    typeof api.unixConnect !== 'function' ||
    typeof api.peerCredentials !== 'function' ||
    typeof api.watchReadable !== 'function' ||
    typeof api.watchWritable !== 'function'
  ) {
    throw new Error('the native addon has no Unix socket functions; rebuild it with `npm run build`');
  }
  return api as UnixSocketApi;
}

/** Generations above a sender that are looked at before giving up: deeper trees are not a process's own helpers. */
const MAX_TREE_DEPTH = 64;

/**
 * Whether pid is root or one of its descendants, by walking /proc/PID/stat's
 * parent links upwards. A pid that is gone (or not visible) is not in the tree.
 */
export function isInProcessTree(pid: number, root: number): boolean {
  let current = pid;
  for (let depth = 0; depth < MAX_TREE_DEPTH; depth++) {
    if (current === root) return true;
    if (current <= 1) return false;
    let line: string;
    try {
      line = readFileSync(`/proc/${current}/stat`, 'latin1');
    } catch {
      return false;
    }
    const entry = parseProcStat(line);
    if (entry === undefined) return false;
    current = entry.ppid;
  }
  return false;
}

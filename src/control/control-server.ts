import { type BigIntStats, closeSync, linkSync, lstatSync, rmSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { ControlCommand } from '../lifecycle/events.ts';
import type { StatusDocument } from '../status/status-json.ts';
import type { ReadableWatch, UnixSocketApi } from '../os/addon.ts';
import { loadUnixSocketApi } from '../os/unix-socket.ts';
import { type ControlAnswer, MAX_LINE_BYTES, parseRequest, type ServerIdentity } from './protocol.ts';
import { errorCode } from '../support/error-code.ts';
import { lazyNet } from '../support/lazy-net.ts';

// The control socket (--control PATH): a Unix stream socket, mode 0600, for
// `sidecar-init ctl`. The file mode keeps other users out of the socket, but a
// mode can be changed and a descriptor passed on, so each connection is also
// checked by the credentials the kernel recorded when it connected
// (SO_PEERCRED, from the native addon; node:net does not expose them): only
// sidecar-init's own uid and root are served, anyone else gets a refusal.
//
// The socket listens and accepts through the addon, not node:net's Server,
// whose listen() loads the cluster module and with it child_process and
// dgram (each compiled from source at every start under --jitless), which a
// plain run otherwise never loads; each connection is then a node:net Socket.
// node:net itself (with its streams, about twenty-five modules compiled from
// source under --jitless) is required at the first connection: a run nobody
// asks anything never loads it.
//
// Nothing here can stall PID 1: every socket is non-blocking, a request is one
// line of at most MAX_LINE_BYTES that must be complete within
// REQUEST_DEADLINE_MS of connecting (a byte at a time cannot hold a slot), a
// connection idle for IDLE_TIMEOUT_MS is closed, at most MAX_CONNECTIONS are open at once (a further one is accepted
// and closed at once), and an answer is written without waiting for the client
// to read it.

export const MAX_CONNECTIONS = 8;
const IDLE_TIMEOUT_MS = 5_000;
const REQUEST_DEADLINE_MS = 5_000;
/** node:net's default backlog. */
const BACKLOG = 511;
/** After a failed accept (EMFILE: no descriptor left), how long the socket waits before it accepts again, rather than spin on it. */
const ACCEPT_RETRY_MS = 100;

export interface ControlHandlers {
  /** Told in every answer to sidecar-init's own uid or root, so `ctl` can say which sidecar-init it reached. */
  readonly identity: ServerIdentity;
  status(): StatusDocument;
  act(command: ControlCommand, uid: number): Promise<{ readonly ok: boolean; readonly message: string }>;
}

/**
 * The socket's path is served by another live process: a second sidecar-init
 * of this uid with the default socket, or one given the same --control.
 * holderPid is its pid as this process sees it, when the kernel tells (a
 * listener in another PID namespace has none here, one with a full backlog
 * cannot be asked).
 */
export class ControlSocketTakenError extends Error {
  readonly code = 'CONTROL_SOCKET_TAKEN';
  constructor(
    readonly path: string,
    readonly holderPid: number | undefined,
  ) {
    super(
      `${path} is served by another process (${holderPid === undefined ? '' : `pid ${holderPid}, `}another sidecar-init with the same --control?); choose another --control path`,
    );
  }
}

export interface ControlServer {
  readonly path: string;
  close(): Promise<void>;
}

export async function serveControl(
  path: string,
  handlers: ControlHandlers,
  logger: Logger,
  /** The default socket says it listens at debug: it is there in every run. */
  listeningLevel: 'info' | 'debug' = 'info',
  api: UnixSocketApi = loadUnixSocketApi(),
): Promise<ControlServer> {
  refuseUnlessStale(path, api);
  const ownUid = process.getuid?.() ?? 0;
  const open = new Set<Socket>();
  // Bound under a name of this start's own beside PATH, then linked into place:
  // the socket appears at PATH whole (mode 0600 already); link, unlike rename,
  // never replaces what another run put at PATH meanwhile. At close only the
  // file this run put at PATH is removed (removeOwnSocket).
  const bindPath = join(dirname(path), `.${Math.random().toString(36).slice(2, 8).padEnd(6, '0')}`);
  const listening = listen(api, bindPath);
  const boundInode = lstatSync(bindPath, { bigint: true }).ino;
  try {
    linkSync(bindPath, path);
  } catch (error) {
    closeSync(listening);
    throw errorCode(error) === 'EEXIST'
      ? new Error(`${path} was created by another process while this one started; choose another --control path`)
      : error;
  } finally {
    rmSync(bindPath, { force: true });
  }
  // Which file is ours: the one at PATH while it is still the inode bound above
  // (read after the link and the unlink, which both change its change time).
  const atPath = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  const bound = atPath?.ino === boundInode ? identityOf(atPath) : undefined;
  const context: ConnectionContext = { ownUid, handlers, logger, api };
  const accepting = acceptConnections(api, listening, (fd) => {
    // As node:net's maxConnections: a further one is accepted and closed at once.
    if (open.size >= MAX_CONNECTIONS) return closeSync(fd);
    const socket = new (lazyNet().Socket)({ fd, readable: true, writable: true, allowHalfOpen: false });
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    handleConnection(socket, fd, context);
  });
  logger[listeningLevel]({ event: 'control-listening', path }, `control socket listening on ${path}`);
  return {
    path,
    close: async () => {
      accepting.close();
      closeSync(listening);
      // A client still connected cannot hold sidecar-init's exit.
      for (const socket of open) socket.destroy();
      removeOwnSocket(path, bound);
    },
  };
}

/**
 * Calls onConnection with each connection of the listening socket, as it
 * comes, until close(). An accept that fails (no descriptor left) is retried
 * after ACCEPT_RETRY_MS: PID 1 must neither die of it nor spin on it.
 */
function acceptConnections(api: UnixSocketApi, listening: number, onConnection: (fd: number) => void): ReadableWatch {
  let watch: ReadableWatch | undefined;
  let retry: NodeJS.Timeout | undefined;
  const acceptWaiting = (): void => {
    try {
      for (let fd = api.unixAccept(listening); fd !== undefined; fd = api.unixAccept(listening)) onConnection(fd);
    } catch {
      watch?.close();
      watch = undefined;
      retry = setTimeout(start, ACCEPT_RETRY_MS).unref();
    }
  };
  const start = (): void => {
    watch = api.watchReadable(listening, acceptWaiting);
  };
  start();
  return {
    close() {
      clearTimeout(retry);
      watch?.close();
      watch = undefined;
    },
  };
}

/**
 * A socket file left by an earlier run (a container restarted in place) is
 * removed; one that another process still serves (a second sidecar-init given
 * the same path on a shared volume) is not stale, and anything that is not a
 * socket is the user's file: neither is ever touched.
 */
function refuseUnlessStale(path: string, api: UnixSocketApi): void {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return;
  if (!stat.isSocket()) throw new Error(`${path} exists and is not a socket; choose another --control path`);
  const holder = findHolder(path, api);
  if (holder !== undefined) throw new ControlSocketTakenError(path, holder.pid);
  unlinkSync(path);
}

/**
 * Who listens at path, by its credentials (SO_PEERCRED: the listener's pid as
 * this process sees it, 0 when it is in a PID namespace this one cannot see);
 * undefined when nobody does. Only a refusal (ECONNREFUSED: nobody listens on
 * this socket file) or its absence proves it stale: a listener with a full
 * backlog answers EAGAIN, another user's socket EACCES, and either is
 * someone's live socket, whose pid is then not known. A Unix connect is
 * answered at once, so the addon's connect never waits; nothing is sent.
 */
function findHolder(path: string, api: UnixSocketApi): { readonly pid: number | undefined } | undefined {
  let fd: number;
  try {
    fd = api.unixConnect(path);
  } catch (error) {
    return errorCode(error) === 'ECONNREFUSED' || errorCode(error) === 'ENOENT' ? undefined : { pid: undefined };
  }
  try {
    const { pid } = api.peerCredentials(fd);
    return { pid: pid > 0 ? pid : undefined };
  } catch {
    return { pid: undefined };
  } finally {
    closeSync(fd);
  }
}

/** Removes the socket this run bound, and nothing that has taken its place since. */
function removeOwnSocket(path: string, bound: string | undefined): void {
  try {
    if (bound !== undefined && fileIdentity(path) === bound) unlinkSync(path);
  } catch {
    // Gone or unreadable meanwhile: nothing of ours to remove.
  }
}

/**
 * Which socket file is at path: the inode alone would not do, since a file
 * created after ours was removed may get its number; its birth time tells them
 * apart. Not the change time: a chmod by the user changes it. (Where statx is
 * refused, Node reports the change time as the birth time: a chmod then makes
 * sidecar-init leave its socket behind at exit, which the next run replaces as
 * stale; it never makes it remove another's.)
 */
function fileIdentity(path: string): string | undefined {
  return identityOf(lstatSync(path, { bigint: true, throwIfNoEntry: false }));
}

function identityOf(stat: BigIntStats | undefined): string | undefined {
  return stat?.isSocket() ? `${stat.dev}:${stat.ino}:${stat.birthtimeNs}` : undefined;
}

/**
 * The listening socket's descriptor, created with mode 0600 by the umask
 * (0177 while it is bound: bind(2) makes the file 0777 less the umask), so
 * there is no moment at which another user could connect. No chmod after it:
 * chmod follows a symlink, and the name may be someone else's by then.
 */
function listen(api: UnixSocketApi, path: string): number {
  const umask = process.umask(0o177);
  try {
    return api.unixStreamListen(path, BACKLOG);
  } finally {
    process.umask(umask);
  }
}

interface ConnectionContext {
  readonly ownUid: number;
  readonly handlers: ControlHandlers;
  readonly logger: Logger;
  readonly api: UnixSocketApi;
}

function handleConnection(socket: Socket, fd: number, context: ConnectionContext): void {
  const { ownUid, handlers, logger, api } = context;
  socket.on('error', () => {});
  socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
  let peer: { uid: number; pid: number };
  try {
    peer = api.peerCredentials(fd);
  } catch {
    socket.destroy();
    return;
  }
  if (peer.uid !== ownUid && peer.uid !== 0) {
    logger.warn({ event: 'control-refused', uid: peer.uid, pid: peer.pid }, `control socket refused a connection from uid ${peer.uid}`);
    answer(socket, { ok: false, error: `refused: uid ${peer.uid} is neither sidecar-init's own (${ownUid}) nor root` });
    return;
  }
  // Only its own uid and root learn which sidecar-init this is.
  const reply = (value: ControlAnswer): void => answer(socket, { ...value, server: handlers.identity });
  let buffered = '';
  let done = false;
  // Until the request line is in; answering it (a restart waits for its grace) has no deadline here.
  const deadline = setTimeout(() => socket.destroy(), REQUEST_DEADLINE_MS);
  socket.once('close', () => clearTimeout(deadline));
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    if (done) return;
    buffered += chunk;
    const end = buffered.indexOf('\n');
    if (end < 0 && Buffer.byteLength(buffered) <= MAX_LINE_BYTES) return;
    done = true;
    clearTimeout(deadline);
    socket.pause();
    if (end < 0 || Buffer.byteLength(buffered.slice(0, end)) > MAX_LINE_BYTES)
      return reply({ ok: false, error: `the request is longer than ${MAX_LINE_BYTES} bytes` });
    void respond(buffered.slice(0, end), peer.uid, handlers, logger).then(
      reply,
      // A failure of the request's handling is the client's answer, never an unhandled rejection in PID 1.
      (error: unknown) => reply({ ok: false, error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

async function respond(line: string, uid: number, handlers: ControlHandlers, logger: Logger): Promise<ControlAnswer> {
  const request = parseRequest(line);
  if (!request.ok) {
    logger.warn({ event: 'control', uid, ok: false }, `control socket refused a request from uid ${uid}: ${request.error}`);
    return { ok: false, error: request.error };
  }
  if (request.value.cmd === 'status') {
    // A read changes nothing: at debug, so a client asking in a loop cannot fill the log.
    logger.debug({ event: 'control', command: 'status', uid, ok: true }, `uid ${uid} asked over the control socket: status`);
    return { ok: true, message: 'status', status: handlers.status() };
  }
  const reply = await handlers.act(request.value.command, uid);
  return reply.ok ? { ok: true, message: reply.message } : { ok: false, error: reply.message };
}

function answer(socket: Socket, reply: ControlAnswer): void {
  if (socket.destroyed) return;
  socket.end(`${JSON.stringify(reply)}\n`);
}

import { monotonicMs } from '../support/monotonic-clock.ts';
import {
  chmodSync,
  closeSync,
  constants,
  fchownSync,
  fstatSync,
  lchownSync,
  lstatSync,
  mkdtempSync,
  openSync,
  rmSync,
  type Stats,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { ProcessUser } from '../plan/plan.ts';
import type { Datagram, UnixSocketApi } from '../os/addon.ts';
import { isInProcessTree, loadUnixSocketApi } from '../os/unix-socket.ts';
import { type NotifyMessage, parseNotifyMessage } from './notify-message.ts';
import type { ChannelEvents, ReadinessChannel } from './readiness-channel.ts';

// systemd's notify socket for one run of a process: a datagram Unix socket in
// a private directory (0700, owned by the process's user so that it, and only
// it and root, can reach the socket), named in NOTIFY_SOCKET. The process is
// ready once it sends READY=1; STATUS= is kept for the log and /status;
// WATCHDOG=1 must come every watchdog period once it is ready (WATCHDOG_USEC
// tells it the period), else the liveness rule applies.
//
// Node's dgram has no Unix datagram sockets, and only SO_PASSCRED tells who
// sent a message, so the socket comes from the native addon
// (src/os/native/unix-socket.c), watched by a libuv poll handle on the
// same loop as everything else: no thread, no cost while idle. A message whose
// sender (the kernel's SCM_CREDENTIALS, not anything it wrote) is not the
// run's process or one of its descendants is dropped: another process that
// found the socket cannot make this one ready. The sender must still exist
// when its message is read (its parent links are read from /proc), as for
// systemd's NotifyAccess=all: systemd-notify waits for that (BARRIER=1), and a
// program that sends and exits at once may be ignored.

/** Messages read per wake-up: a flood waits in the kernel's buffer, the loop never stalls on it. */
const MESSAGES_PER_WAKE = 16;
/**
 * STATUS= changes reach the log at most this often (the latest one, at the end
 * of the interval), so a process that sends thousands cannot flood sidecar-init's
 * log; /status always shows the latest.
 */
const STATUS_LOG_INTERVAL_MS = 1_000;
/** sockaddr_un's sun_path holds 108 bytes with the NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

export interface NotifyChannelOptions {
  readonly user: ProcessUser | undefined;
  readonly watchdogMs: number | undefined;
  readonly events: ChannelEvents;
  /** Where the private directory is made (default: the system's temporary directory). */
  readonly parentDir?: string;
  readonly api?: UnixSocketApi;
}

export function openNotifyChannel(options: NotifyChannelOptions): ReadinessChannel {
  const api = options.api ?? loadUnixSocketApi();
  const { events, watchdogMs } = options;
  const { dir, path, fd } = bindNotifySocket(api, options.parentDir ?? tmpdir(), options.user);
  const run = createRunFilter(events);
  const readiness = createReadyFlag();
  const statusLog = createStatusLog(events);
  const watchdog = createWatchdog(watchdogMs, events);
  const reader = readDatagrams(api, fd, (datagram) => {
    if (run.accepts(datagram)) applyMessage(parseNotifyMessage(datagram.data), { readiness, statusLog, watchdog });
  });
  let closed = false;
  return {
    env: {
      NOTIFY_SOCKET: path,
      ...(watchdogMs === undefined ? {} : { WATCHDOG_USEC: String(watchdogMs * 1000) }),
    },
    fd: undefined,
    attach: (pid: number, _pipe: Readable | undefined) => run.attach(pid),
    get ready() {
      return readiness.ready;
    },
    get status() {
      return statusLog.latest();
    },
    onReady: (listener) => readiness.onReady(listener),
    close() {
      if (closed) return;
      closed = true;
      watchdog.close();
      statusLog.close();
      readiness.close();
      // The reader first: libuv must stop polling a descriptor before it is closed.
      reader.close();
      closeQuietly(fd);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What one message changes: the status text, the watchdog, readiness (READY=1 arms the watchdog; WATCHDOG=1 counts only once ready). */
function applyMessage(
  message: NotifyMessage,
  { readiness, statusLog, watchdog }: { readiness: ReadyFlag; statusLog: StatusLog; watchdog: Watchdog },
): void {
  if (message.status !== undefined) statusLog.set(message.status);
  if (message.watchdogTrigger) {
    watchdog.trigger();
    return;
  }
  if (message.ready && !readiness.ready) {
    watchdog.arm();
    readiness.set();
  } else if (message.watchdogPing && readiness.ready) {
    watchdog.arm();
  }
}

/**
 * Which messages count: none before the run's pid is known, none cut short,
 * and only those of the run's process or its descendants; a foreign sender
 * is reported once per run.
 */
function createRunFilter(events: ChannelEvents) {
  let pid: number | undefined;
  let foreignReported = false;
  return {
    attach(spawned: number): void {
      pid = spawned;
    },
    accepts(datagram: Datagram): boolean {
      if (pid === undefined || datagram.truncated) return false;
      if (isInProcessTree(datagram.pid, pid)) return true;
      if (!foreignReported) events.onForeignSender(datagram.pid, datagram.uid);
      foreignReported = true;
      return false;
    },
  };
}

type ReadyFlag = ReturnType<typeof createReadyFlag>;

/** READY=1 once seen, for the run's life (a process never takes it back), and who hears it. */
function createReadyFlag() {
  const listeners = new Set<() => void>();
  let ready = false;
  return {
    get ready(): boolean {
      return ready;
    },
    set(): void {
      ready = true;
      for (const listener of [...listeners]) listener();
    },
    onReady(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close(): void {
      listeners.clear();
    },
  };
}

/**
 * Reads the socket when it is readable, at most MESSAGES_PER_WAKE messages per
 * wake-up, each handed to `handle`; descriptors passed with a message are
 * closed once it is handled.
 */
function readDatagrams(api: UnixSocketApi, fd: number, handle: (datagram: Datagram) => void): { close(): void } {
  let closed = false;
  const watch = api.watchReadable(fd, () => {
    for (let count = 0; count < MESSAGES_PER_WAKE && !closed; count++) {
      const datagram = receiveQuietly(api, fd);
      if (datagram === undefined) return;
      try {
        handle(datagram);
      } finally {
        // After the message is handled, never before: systemd-notify waits
        // (BARRIER=1) until its descriptor is closed, so it is still alive,
        // and in the process tree, while its READY=1 is looked at.
        for (const attached of datagram.fds) closeQuietly(attached);
      }
    }
  });
  return {
    close(): void {
      closed = true;
      watch.close();
    },
  };
}

/**
 * The socket, bound in a private directory only `user` (and root) can enter; the directory is removed if a step fails.
 * The directory is looked up by its name once, right after mkdtemp, and from
 * then on reached through that descriptor (/proc/self/fd/N): the parent may be
 * a folder others can write without the sticky bit (an emptyDir mounted at
 * /tmp), where a neighbour could rename it and leave a symlink in its place
 * for the chown to follow.
 */
function bindNotifySocket(
  api: UnixSocketApi,
  parentDir: string,
  user: ProcessUser | undefined,
): { readonly dir: string; readonly path: string; readonly fd: number } {
  const dir = mkdtempSync(join(parentDir, 'sidecar-init-notify-'));
  const path = join(dir, 'notify');
  let fd: number | undefined;
  let dirFd: number | undefined;
  try {
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
      throw new Error(`the notify socket's path ${path} is longer than a Unix socket allows; set TMPDIR to a shorter directory`);
    }
    dirFd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    checkOwnDir(fstatSync(dirFd), dir);
    const held = `/proc/self/fd/${dirFd}/notify`;
    fd = api.unixDgramBind(held);
    if (user !== undefined) {
      // The directory stays 0700 (mkdtemp's mode): only its owner gets in.
      const uid = user.uid ?? process.getuid?.() ?? 0;
      fchownSync(dirFd, uid, user.gid);
      lchownSync(held, uid, user.gid);
    }
    chmodSync(held, 0o600);
    // NOTIFY_SOCKET names the path: it must still lead to the folder the socket is in.
    if (!sameFile(lstatSync(dir), fstatSync(dirFd))) {
      throw replacedError(dir);
    }
    return { dir, path, fd };
  } catch (error) {
    // A restarted process opens a channel at every start: a socket left open by each failed one would add up.
    if (fd !== undefined) closeQuietly(fd);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  } finally {
    if (dirFd !== undefined) closeQuietly(dirFd);
  }
}

/** What mkdtemp made: a folder of this uid that nobody else can enter (another one put in its place is refused). */
function checkOwnDir(stat: Stats, dir: string): void {
  if ((stat.mode & 0o077) !== 0 || stat.uid !== (process.geteuid?.() ?? 0)) {
    throw replacedError(dir);
  }
}

function replacedError(dir: string): Error {
  return new Error(`${dir} was replaced while the notify socket was made in it; set TMPDIR to a folder only sidecar-init can write`);
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

type StatusLog = ReturnType<typeof createStatusLog>;

/** STATUS= as last sent, told to the log at most once per STATUS_LOG_INTERVAL_MS (the latest at the end of it). */
function createStatusLog(events: ChannelEvents) {
  let status: string | undefined;
  let logged: string | undefined;
  let loggedAt = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const log = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (status === undefined || status === logged || closed) return;
    logged = status;
    loggedAt = monotonicMs();
    events.onStatus(status);
  };
  return {
    latest: () => status,
    set(next: string): void {
      if (next === status) return;
      status = next;
      const waitMs = loggedAt + STATUS_LOG_INTERVAL_MS - monotonicMs();
      if (waitMs <= 0) log();
      else timer ??= setTimeout(log, waitMs);
    },
    close(): void {
      closed = true;
      clearTimeout(timer);
    },
  };
}

type Watchdog = ReturnType<typeof createWatchdog>;

/** The watchdog: once armed, a WATCHDOG=1 must come within `watchdogMs` (none when undefined). */
function createWatchdog(watchdogMs: number | undefined, events: ChannelEvents) {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  return {
    arm(): void {
      if (watchdogMs === undefined || closed) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        events.onWatchdogMissed(`no WATCHDOG=1 within its ${watchdogMs}ms watchdog`);
      }, watchdogMs);
    },
    trigger(): void {
      clearTimeout(timer);
      events.onWatchdogMissed('it sent WATCHDOG=trigger');
    },
    close(): void {
      closed = true;
      clearTimeout(timer);
    },
  };
}

/** The next message, or undefined when none is waiting (or the socket failed: the watch stops reading for this wake-up). */
function receiveQuietly(api: UnixSocketApi, fd: number): Datagram | undefined {
  try {
    return api.unixDgramReceive(fd);
  } catch {
    return undefined;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to release.
  }
}

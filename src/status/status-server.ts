import { monotonicMs } from '../support/monotonic-clock.ts';
import { createServer } from 'node:net';
import { createAnswerScheduler } from './answer-scheduler.ts';
import type { SchedulerLimits } from './answer-scheduler.ts';
import type { ConnectionLimits, StatusConnection } from './status-connection.ts';
import { openStatusConnection } from './status-connection.ts';
import { answerStatusRequest } from './status-routes.ts';
import type { StatusResponse } from './status-routes.ts';
import type { StatusSource } from '../runner/ports.ts';

// The status server: /healthz, /readyz, /status and /metrics over plain HTTP,
// off unless an address is given. It shares PID 1's event loop with signal
// handling and supervision, and anyone who can reach its port can send it
// anything, so every cost is bounded: connections (the oldest is closed to let
// a new one in), what each may queue, how long each may wait (see
// status-connection.ts), and how many answers all of them get per turn of the
// loop and per second (answer-scheduler.ts).
// It is unref()'d (it never keeps sidecar-init alive on its own) and closed,
// connections included, before sidecar-init exits.
//
// Why node:net and not node:http: the requests are tiny GETs, and node:http
// cannot bound them. Its parser turns a whole read (64 KiB: some 2,600
// pipelined requests) into request and response objects in one call, before
// any limit of ours can act. Measured by bench/status-flood.ts against node:http
// hardened as far as its options go (bench/node-http-status.ts): 256
// connections pipelining /status and reading the answers grew its RSS by
// 220 MiB and delayed a fresh /healthz by 1.8 s, where this server, reading
// one request head at a time with its own bounded reader (http-request-head.ts)
// and answering in turns (answer-scheduler.ts), grew by 18 MiB and answered
// in 76 ms. The figures are in docs/observability.md.

export interface StatusServerLimits extends ConnectionLimits, SchedulerLimits {
  readonly maxConnections: number;
}

export const STATUS_SERVER_LIMITS = {
  /**
   * Open connections. kubelet's probes and a scraper need a handful; a flood
   * beyond this closes its own oldest connections, never the new one, so a
   * probe still gets in. Each holds at most ~100 KiB (bytes read before it
   * was stopped, unread answers), an evicted one ~20 KiB: ~30 MiB for all.
   */
  maxConnections: 256,
  maxHeadBytes: 8 * 1024,
  maxQueuedBytes: 16 * 1024,
  /** For all connections together; the rest wait for the next turn, after signals and supervision. */
  answersPerTurn: 32,
  /** For all connections together: kubelet's probes and a scraper ask a few times a second. */
  answersPerSecond: 1_000,
  /** A probe or a scrape sends its request at once; a client this slow is stuck or hostile. */
  headTimeoutMs: 2_000,
  idleTimeoutMs: 5_000,
  answerTimeoutMs: 5_000,
} as const satisfies StatusServerLimits;

/** How often deadlines are checked: a deadline is enforced within this much of passing. */
const SWEEP_EVERY_MS = 250;
/** Node's socket buffers (64 KiB by default), smaller: the most of a client's unread answers kept. */
const SOCKET_HIGH_WATER_MARK_BYTES = 16 * 1024;
/** The host of `:PORT`: Node listens on `::` (IPv4 too) where the kernel has IPv6, else on 0.0.0.0. */
const EVERY_INTERFACE = '::';

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

export interface StatusServerOptions {
  readonly address: ListenAddress;
  readonly source: StatusSource;
  /** Listening failed (say the port is taken): reported, never fatal; supervision goes on without it. */
  readonly onError: (error: Error) => void;
  /** STATUS_SERVER_LIMITS unless given (tests use short timeouts). */
  readonly limits?: StatusServerLimits;
}

export interface StatusServer {
  /** The address bound (port 0 resolved), or undefined when listening failed. */
  readonly listening: Promise<ListenAddress | undefined>;
  /** Stops listening and drops every connection, keep-alive ones included. */
  close(): Promise<void>;
}

export function startStatusServer(options: StatusServerOptions): StatusServer {
  const limits: StatusServerLimits = options.limits ?? STATUS_SERVER_LIMITS;
  // Oldest first: a Set iterates in insertion order. Also by peer, for eviction.
  const connections = new Set<StatusConnection>();
  const byPeer = new Map<string, Set<StatusConnection>>();
  const peerOf = new Map<StatusConnection, string>();
  // Connections evicted to make room, closed at the next sweep: held open that
  // long, a flood that reopens every connection closed cannot make sidecar-init
  // accept and close thousands a second (bench/status-flood.ts, 300 idle
  // connections: closed at once, 9,000 a second and RSS +42 MiB; held to the
  // sweep, some 150 a second and +14 MiB).
  const evicted = new Set<StatusConnection>();
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = () => {
    const now = monotonicMs();
    for (const connection of evicted) connection.destroy();
    evicted.clear();
    for (const connection of connections) connection.expireIfDue(now);
    if (connections.size === 0 && evicted.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  const forget = (connection: StatusConnection) => {
    connections.delete(connection);
    evicted.delete(connection);
    unlist(connection);
  };
  const unlist = (connection: StatusConnection) => {
    const peer = peerOf.get(connection);
    if (peer === undefined) return;
    peerOf.delete(connection);
    const open = byPeer.get(peer);
    open?.delete(connection);
    if (open?.size === 0) byPeer.delete(peer);
  };
  /** The oldest connection of the address that holds the most: a flood evicts its own connections, not a probe's. */
  const nextToEvict = (): StatusConnection | undefined => {
    let busiest: Set<StatusConnection> | undefined;
    for (const open of byPeer.values()) if (busiest === undefined || open.size > busiest.size) busiest = open;
    return busiest?.values().next().value;
  };
  const answer = (method: string, target: string) => answerSafely(method, target, options.source);
  const scheduler = createAnswerScheduler(limits);

  const server = createServer({ allowHalfOpen: true, highWaterMark: SOCKET_HIGH_WATER_MARK_BYTES, noDelay: true }, (socket) => {
    // Full: the oldest connection of the busiest address goes. A flood then
    // churns through its own connections, while a probe's new connection (from
    // the kubelet's address) is never the one evicted; from the flood's own
    // address, it is answered long before it is the oldest.
    // (Taken out of the table at once: its 'close' comes later, and the next accept must not pick it again.)
    const oldest = connections.size >= limits.maxConnections ? nextToEvict() : undefined;
    if (oldest !== undefined) {
      connections.delete(oldest);
      unlist(oldest);
      // At most as many wait for the sweep as may be open: past that, the oldest is closed at once.
      const longestEvicted = evicted.size >= limits.maxConnections ? evicted.values().next().value : undefined;
      if (longestEvicted !== undefined) {
        evicted.delete(longestEvicted);
        longestEvicted.destroy();
      }
      if (oldest.evict()) evicted.add(oldest);
      else oldest.destroy();
    }
    socket.unref();
    const peer = socket.remoteAddress ?? '';
    const connection = openStatusConnection(socket, { limits, scheduler, peer, answer, onClose: () => forget(connection) });
    connections.add(connection);
    peerOf.set(connection, peer);
    let open = byPeer.get(peer);
    if (open === undefined) {
      open = new Set();
      byPeer.set(peer, open);
    }
    open.add(connection);
    sweeper ??= setInterval(sweep, SWEEP_EVERY_MS).unref();
  });
  server.unref();

  let listeningNow = false;
  const listening = new Promise<ListenAddress | undefined>((resolve) => {
    server.once('error', (error) => {
      options.onError(error);
      resolve(undefined);
    });
    const onListening = () => {
      listeningNow = true;
      const bound = server.address();
      resolve(typeof bound === 'object' && bound !== null ? { host: bound.address, port: bound.port } : options.address);
    };
    // Without a host, Node binds `::` dual-stack, or 0.0.0.0 where IPv6 is unavailable.
    if (options.address.host === EVERY_INTERFACE) server.listen(options.address.port, onListening);
    else server.listen(options.address.port, options.address.host, onListening);
  });
  // After listening, an error of the server itself is reported, never thrown.
  void listening.then(() => server.on('error', options.onError));

  return {
    listening,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweeper);
        scheduler.stop();
        for (const connection of [...connections, ...evicted]) connection.destroy();
        if (!listeningNow) return resolve();
        server.close(() => resolve());
      }),
  };
}

function answerSafely(method: string, target: string, source: StatusSource): StatusResponse {
  try {
    return answerStatusRequest(method, target, source);
  } catch (error) {
    return { status: 500, contentType: 'text/plain; charset=utf-8', body: `status unavailable: ${String(error)}\n` };
  }
}

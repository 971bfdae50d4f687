import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { Socket } from 'node:net';
import { monotonicMs } from '../support/monotonic-clock.ts';

// What connections may cost the webhook, whoever opens them: anyone who can
// reach its Service (any pod, without a NetworkPolicy) can connect, and a
// webhook that dies of it (the Deployment's 128 MiB) lets the API server admit
// pods uninjected (failurePolicy: Ignore). Node's HTTPS server bounds none of
// it: connections are unlimited (each TLS one about 50 KiB), a handshake may
// take 120 s, and a connection that never sends a request is only found by a
// check every 30 s. Here, as the status server does (src/status/):
// - a cap on open connections from one address, past which a new one is
//   closed at once;
// - a cap on all of them: when full, the oldest connection of the address
//   holding the most is closed to let a new one in, if it is not in the middle
//   of a review (so a flood from many addresses churns through its own idle
//   connections while the API server's still get in); else the new one is;
// - a deadline for the handshake, from the TCP connection, whatever the
//   client trickles, then one for the first request, kept here rather than
//   left to Node's headersTimeout (which, checked at its own interval, may
//   also end such a connection first, with a 408 answer: either way it is
//   closed within a sweep or two of its deadline). Later requests' heads and
//   kept-alive connections have the HTTP server's own deadlines.
//
// The deadlines are kept by one sweep over the table, not by a timer per
// connection: a connection past its deadline is closed at the next sweep and,
// if its 'close' has not come by the one after, reset (RST) at every sweep
// until it does. So no connection outlives its deadline by more than a sweep
// or two, whichever of its two sockets (the TCP one accepted, the TLS one
// over it) a close reached first, and a timer cleared or replaced at the wrong
// moment cannot leave one open for good.

export interface WebhookConnectionLimits {
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
  /** From the TCP connection to a completed TLS handshake. */
  readonly handshakeTimeoutMs: number;
  /** From the handshake to the first request's head. */
  readonly headTimeoutMs: number;
  /** How often the deadlines are checked: a connection may outlive its deadline by this much. */
  readonly sweepEveryMs: number;
}

type Phase = 'handshake' | 'first-request' | 'serving';

interface Connection {
  readonly tcp: Socket;
  /** The TLS socket over `tcp`, once the handshake completed. */
  tls: Socket | undefined;
  readonly address: string;
  /** Address and port: read while the socket is open (a closed one has neither). */
  readonly peer: string;
  phase: Phase;
  /** When the phase's deadline passes, on the monotonic clock; none while serving. */
  deadlineAt: number;
  /** Reviews being answered on it: it is not closed to make room while one is. */
  reviews: number;
  /** Asked to close once: a sweep that still finds it resets it. */
  closing: boolean;
}

export interface ConnectionTable {
  readonly open: () => number;
  /** Closes every connection that has no review in flight (the webhook is stopping). */
  readonly closeIdle: () => void;
}

export function limitConnections(server: Server, limits: WebhookConnectionLimits): ConnectionTable {
  // Oldest first: a Set iterates in insertion order.
  const byAddress = new Map<string, Set<Connection>>();
  // The TLS socket a request arrives on is not the TCP one accepted; both
  // have the client's address and port, which name one live connection.
  const byPeer = new Map<string, Connection>();
  let open = 0;

  const peerKey = (socket: Socket) => `${socket.remoteAddress}|${socket.remotePort}`;
  const evictable = (): Connection | undefined => {
    let busiest: Set<Connection> | undefined;
    for (const connections of byAddress.values()) if (busiest === undefined || connections.size > busiest.size) busiest = connections;
    for (const connection of busiest ?? []) if (connection.reviews === 0) return connection;
    return undefined;
  };

  // Called after the TLS server's own listener has wrapped the socket.
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const mine = byAddress.get(address);
    if (mine !== undefined && mine.size >= limits.maxConnectionsPerAddress) return void socket.destroy();
    if (open >= limits.maxConnections) {
      const victim = evictable();
      if (victim === undefined) return void socket.destroy();
      close(victim);
      forget(victim);
    }
    const connection: Connection = {
      tcp: socket,
      tls: undefined,
      address,
      peer: peerKey(socket),
      phase: 'handshake',
      deadlineAt: monotonicMs() + limits.handshakeTimeoutMs,
      reviews: 0,
      closing: false,
    };
    const connections = mine ?? new Set();
    connections.add(connection);
    byAddress.set(address, connections);
    byPeer.set(connection.peer, connection);
    open += 1;
    socket.once('close', () => forget(connection));
  });

  const forget = (connection: Connection) => {
    const connections = byAddress.get(connection.address);
    if (connections?.delete(connection) !== true) return;
    if (connections.size === 0) byAddress.delete(connection.address);
    byPeer.delete(connection.peer);
    open -= 1;
  };

  server.on('secureConnection', (socket: Socket) => {
    const connection = byPeer.get(peerKey(socket));
    // Not found: it keeps its handshake deadline, so it is closed, not kept.
    if (connection === undefined || connection.phase !== 'handshake') return;
    connection.tls = socket;
    connection.phase = 'first-request';
    connection.deadlineAt = monotonicMs() + limits.headTimeoutMs;
  });

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const connection = byPeer.get(peerKey(request.socket));
    if (connection === undefined) return;
    connection.phase = 'serving';
    connection.reviews += 1;
    response.once('close', () => {
      connection.reviews -= 1;
    });
  });

  const sweep = setInterval(() => {
    const now = monotonicMs();
    for (const connections of byAddress.values())
      for (const connection of connections) if (connection.phase !== 'serving' && now >= connection.deadlineAt) close(connection);
  }, limits.sweepEveryMs).unref();
  server.once('close', () => clearInterval(sweep));

  return {
    open: () => open,
    closeIdle: () => {
      for (const connections of byAddress.values()) for (const connection of connections) if (connection.reviews === 0) close(connection);
    },
  };
}

/**
 * Destroys both sockets the first time; a connection still in the table at
 * a later call has not closed, and is reset.
 */
function close(connection: Connection): void {
  if (!connection.closing) {
    connection.closing = true;
    connection.tls?.destroy();
    connection.tcp.destroy();
    return;
  }
  try {
    connection.tcp.resetAndDestroy();
  } catch {
    // No TCP handle left to reset: destroy() already released it.
    connection.tcp.destroy();
  }
}

import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import v8 from 'node:v8';

// The alternative to sidecar-init's status server that bench/status-flood.ts
// measures beside it: node:http hardened as far as its options and events
// allow, with the same limits where node:http has a knob for them (header
// timeout checked every 250 ms, the oldest of 256 connections closed for a new
// one, a connection with more than 16 requests awaiting answers closed), the
// same young-generation flag as bin/sidecar-init, and a /status body of the
// same size. It logs the two lines the bench reads, as sidecar-init does.

v8.setFlagsFromString('--semi-space-growth-factor=1');
const MAX_CONNECTIONS = 256;
const MAX_OUTSTANDING = 16;
const BODY = `${JSON.stringify({ phase: 'running', ready: true, reapedOrphans: 0, teardownSeconds: null, processes: [{ name: 'app', role: 'app', state: 'running', pid: 2, ready: true, restarts: 0, lastExit: null }] }, null, 2)}\n`;

const log = (fields: Record<string, unknown>) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
const connections = new Set<Socket>();
const outstanding = new WeakMap<Socket, number>();

const server = createServer(
  {
    maxHeaderSize: 8 * 1024,
    headersTimeout: 2_000,
    requestTimeout: 2_000,
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: 250,
    highWaterMark: 16 * 1024,
  },
  (request, response) => {
    const socket = request.socket;
    const waiting = (outstanding.get(socket) ?? 0) + 1;
    outstanding.set(socket, waiting);
    if (waiting > MAX_OUTSTANDING) {
      socket.destroy();
      return;
    }
    response.on('finish', () => outstanding.set(socket, (outstanding.get(socket) ?? 1) - 1));
    const body = request.url === '/status' ? BODY : 'ok\n';
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
    response.end(body);
  },
);
server.on('connection', (socket: Socket) => {
  const oldest = connections.size >= MAX_CONNECTIONS ? connections.values().next().value : undefined;
  if (oldest !== undefined) {
    connections.delete(oldest);
    oldest.destroy();
  }
  connections.add(socket);
  socket.on('close', () => connections.delete(socket));
});
server.on('clientError', (_error, socket: Socket) => socket.destroy());
process.on('SIGHUP', () => log({ event: 'signal', signal: 'SIGHUP' }));
process.on('SIGTERM', () => process.exit(0));
server.listen(0, '127.0.0.1', () => {
  const { address, port } = server.address() as { address: string; port: number };
  log({ event: 'status-server-listening', host: address, port });
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Certificate, makeCertificate } from '../../test/support/webhook.ts';
import { type ConnectionTable, limitConnections } from './limit-connections.ts';

// The deadlines over real TLS connections on a real HTTPS server, made short
// (a handshake and a first request have 300 ms each, checked every 50 ms) so
// that what must close does within a test; the bounds asserted are liveness
// bounds, many times the deadlines.

const LIMITS = { maxConnections: 8, maxConnectionsPerAddress: 4, handshakeTimeoutMs: 300, headTimeoutMs: 300, sweepEveryMs: 50 };
const LIVENESS_MS = 10_000;

const work = mkdtempSync(join(tmpdir(), 'sidecar-init-limit-connections-'));
let certificate: Certificate;
let server: Server;
let table: ConnectionTable;
let port: number;
const clients: Socket[] = [];

beforeAll(() => {
  certificate = makeCertificate(work);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function start(): Promise<void> {
  server = createServer(
    { cert: readFileSync(certificate.certFile), key: readFileSync(certificate.keyFile), keepAliveTimeout: 60_000 },
    (_request, response) => response.end('answered'),
  );
  table = limitConnections(server, LIMITS);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await new Promise((resolve) => server.close(resolve));
});

function closed(socket: Socket): Promise<number> {
  const from = Date.now();
  return new Promise((resolve, reject) => {
    const late = setTimeout(() => reject(new Error(`still open after ${LIVENESS_MS} ms`)), LIVENESS_MS);
    socket.once('close', () => {
      clearTimeout(late);
      resolve(Date.now() - from);
    });
  });
}

function handshaken(): Promise<TLSSocket> {
  const socket = connectTls({ host: '127.0.0.1', port, ca: certificate.ca });
  socket.on('error', () => {});
  clients.push(socket);
  return new Promise((resolve) => socket.once('secureConnect', () => resolve(socket)));
}

/** A connection that sent a request and got its answer: kept alive by the server, past every deadline of this table. */
async function served(): Promise<TLSSocket> {
  const client = await handshaken();
  const answered = new Promise<void>((resolve) => client.on('data', (chunk: Buffer) => chunk.includes('answered') && resolve()));
  client.write('GET / HTTP/1.1\r\nHost: webhook\r\n\r\n');
  await answered;
  return client;
}

describe('limitConnections', () => {
  it('closes a connection that never starts TLS, past the handshake deadline', async () => {
    await start();
    const silent = connect({ host: '127.0.0.1', port });
    silent.on('error', () => {});
    clients.push(silent);
    const whenClosed = closed(silent);
    await new Promise((resolve) => silent.once('connect', resolve));
    await whenClosed;
    await expect.poll(() => table.open()).toBe(0);
  });

  it('closes a handshaken connection that never sends a request, past the first-request deadline', async () => {
    await start();
    const idle = await handshaken();
    const heldMs = await closed(idle);
    // Not before its deadline: closed by the sweep, not by something else.
    expect(heldMs).toBeGreaterThanOrEqual(LIMITS.headTimeoutMs - LIMITS.sweepEveryMs);
    await expect.poll(() => table.open()).toBe(0);
  });

  it('keeps a connection that sent its request open past both deadlines, to be kept alive', async () => {
    await start();
    const client = await served();
    // A silent connection opened after the answer is closed by its deadline: by then the sweep has run over the served one many times.
    const silent = connect({ host: '127.0.0.1', port });
    silent.on('error', () => {});
    clients.push(silent);
    await closed(silent);
    expect(client.destroyed).toBe(false);
    await expect.poll(() => table.open()).toBe(1);
  });

  it('refuses a connection past the cap of one address at once, before its handshake', async () => {
    await start();
    const kept: TLSSocket[] = [];
    for (let index = 0; index < LIMITS.maxConnectionsPerAddress; index += 1) kept.push(await served());
    const extra = connectTls({ host: '127.0.0.1', port, ca: certificate.ca });
    extra.on('error', () => {});
    clients.push(extra);
    let handshook = false;
    extra.once('secureConnect', () => {
      handshook = true;
    });
    await closed(extra);
    // Past a deadline it would have completed its handshake first.
    expect(handshook).toBe(false);
    expect(kept.filter((socket) => socket.destroyed)).toHaveLength(0);
  });
});

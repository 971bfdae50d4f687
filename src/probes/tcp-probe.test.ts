import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../test/support/commands.ts';
import { createTcpProbe } from './tcp-probe.ts';
import { watchReadiness } from './watch-readiness.ts';

const ATTEMPT_TIMEOUT_MS = 1_000;
const LISTEN_DELAY_MS = 300;
const PERIOD_MS = 100;
/** A liveness bound: one period plus whatever a loaded machine adds; the figure itself is bench/'s. */
const READY_AFTER_LISTEN_BOUND_MS = PERIOD_MS + 2_000;

let servers: Server[] = [];
let accepted: Socket[] = [];

afterEach(async () => {
  for (const socket of accepted) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  servers = [];
  accepted = [];
});

describe('createTcpProbe', () => {
  it('describes itself as a tcp URL', () => {
    expect(createTcpProbe('127.0.0.1', 15000).description).toBe('tcp://127.0.0.1:15000');
    expect(createTcpProbe('::1', 15000).description).toBe('tcp://[::1]:15000');
  });

  it('succeeds once a server accepts, and leaves no connection open', async () => {
    const server = await listen(0);
    const outcome = await createTcpProbe('127.0.0.1', portOf(server)).check(ATTEMPT_TIMEOUT_MS, new AbortController().signal);
    expect(outcome).toEqual({ ok: true });
    await expect.poll(() => connectionsOf(server)).toBe(0);
  });

  it('fails on a closed port, naming the error', async () => {
    const port = await freePort();
    const outcome = await createTcpProbe('127.0.0.1', port).check(ATTEMPT_TIMEOUT_MS, new AbortController().signal);
    expect(outcome).toEqual({ ok: false, reason: `tcp://127.0.0.1:${port}: ECONNREFUSED` });
  });

  it('is ready only after the server starts listening, within a period of it', async () => {
    const port = await freePort();
    const probe = createTcpProbe('127.0.0.1', port);
    let listenedAt = Number.POSITIVE_INFINITY;
    const delayedListen = new Promise<void>((resolve) =>
      setTimeout(() => {
        void listen(port).then(() => {
          listenedAt = performance.now();
          resolve();
        });
      }, LISTEN_DELAY_MS),
    );

    const controller = new AbortController();
    const timing = { periodMs: PERIOD_MS, timeoutMs: ATTEMPT_TIMEOUT_MS, periodAfterStartMs: 10_000 };
    const { attempts } = await new Promise<{ attempts: number }>((resolve) =>
      watchReadiness(
        probe,
        timing,
        (ready, detail) => {
          if (!ready) return;
          controller.abort();
          resolve(detail);
        },
        controller.signal,
      ),
    );
    const readyAt = performance.now();
    await delayedListen;

    expect(attempts).toBeGreaterThan(1);
    expect(readyAt).toBeGreaterThanOrEqual(listenedAt);
    expect(readyAt - listenedAt).toBeLessThan(READY_AFTER_LISTEN_BOUND_MS);
  });
});

function listen(port: number): Promise<Server> {
  // Accepted sockets stay open on this side, so a probe that forgot to close its
  // end would show up in the server's connection count.
  const server = createServer((socket) => {
    accepted.push(socket);
    socket.on('error', () => undefined);
  });
  servers.push(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  return address.port;
}

function connectionsOf(server: Server): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

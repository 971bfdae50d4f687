import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
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

/** Short, so a test of it is quick; the bound below is what a timeout that never fires would break. */
const NEVER_ACCEPTED_TIMEOUT_MS = 300;
/** Generous: the attempt's own timeout plus whatever a loaded machine adds to a timer. */
const TIMED_OUT_BOUND_MS = NEVER_ACCEPTED_TIMEOUT_MS + 4_000;

let servers: Server[] = [];
const peers: ChildProcess[] = [];
let accepted: Socket[] = [];

afterEach(async () => {
  for (const socket of accepted) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  servers = [];
  accepted = [];
  for (const peer of peers.splice(0)) peer.kill('SIGKILL');
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

  it('fails at its timeout when the peer never accepts (a full backlog), and closes its socket', async () => {
    const port = await listenWithFullBacklog();
    const startedAt = performance.now();
    const outcome = await withinBound(
      createTcpProbe('127.0.0.1', port).check(NEVER_ACCEPTED_TIMEOUT_MS, new AbortController().signal),
      TIMED_OUT_BOUND_MS,
    );
    expect(outcome).toEqual({ ok: false, reason: `timed out after ${NEVER_ACCEPTED_TIMEOUT_MS}ms` });
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(NEVER_ACCEPTED_TIMEOUT_MS - 1);
    // Its SYN was dropped, never answered: the probe's socket waited in SYN-SENT until the timeout destroyed it.
    expect(synSentTo(port)).toBe(0);
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

/**
 * A listener that never accepts (python3, since a node:net server accepts by
 * itself), its backlog 0 filled by one connection: Linux queues backlog + 1,
 * and drops every later SYN while the queue is full, so a connect there gets
 * no answer at all, as behind a firewall that drops.
 */
async function listenWithFullBacklog(): Promise<number> {
  const script = [
    'import socket, sys, time',
    's = socket.socket()',
    "s.bind(('127.0.0.1', 0))",
    's.listen(0)',
    'print(s.getsockname()[1], flush=True)',
    'time.sleep(300)',
  ].join('\n');
  const peer = spawn('python3', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  peers.push(peer);
  const port = await new Promise<number>((resolve, reject) => {
    peer.once('exit', (code) => reject(new Error(`the listener exited (${code}) before listening`)));
    peer.stdout?.setEncoding('utf8').once('data', (line: string) => resolve(Number(line.trim())));
  });
  const filler = connect(port, '127.0.0.1');
  accepted.push(filler);
  await new Promise<void>((resolve, reject) => {
    filler.once('connect', resolve);
    filler.once('error', reject);
  });
  return port;
}

/** Sockets of this machine's network namespace in SYN-SENT (state 02 of /proc/net/tcp) towards 127.0.0.1:port. */
function synSentTo(port: number): number {
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[2] === remote && fields[3] === '02').length;
}

function withinBound<T>(promise: Promise<T>, boundMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no outcome within ${boundMs}ms`)), boundMs);
    void promise.then((value) => {
      clearTimeout(timer);
      resolve(value);
    }, reject);
  });
}

import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePrometheusText } from '../../test/support/prometheus-parser.ts';
import { podSnapshot } from '../../test/support/status-snapshot.ts';
import type { StatusServer } from './status-server.ts';
import { STATUS_SERVER_LIMITS, type StatusServerLimits, startStatusServer } from './status-server.ts';
import type { StatusSource } from '../runner/ports.ts';
import type { StatusSnapshot } from '../plan/status-snapshot.ts';

const HOST = '127.0.0.1';

function snapshotOf(phase: StatusSnapshot['phase'], proxyReady: boolean): StatusSnapshot {
  return podSnapshot(phase, { proxy: { probeReady: proxyReady }, reapedOrphans: 3 });
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function ask(port: number, path: string, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: HOST, port, path, method, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Sends raw bytes and collects everything the server writes until it closes the connection. */
function rawExchange(port: number, bytes: string, host = HOST): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => socket.write(bytes));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('startStatusServer', () => {
  let server: StatusServer | undefined;
  let current = snapshotOf('running', true);
  const errors: Error[] = [];
  const source: StatusSource = { snapshot: () => current };

  async function start(port = 0, limits: Partial<StatusServerLimits> = {}, host = HOST): Promise<number> {
    server = startStatusServer({
      address: { host, port },
      source,
      onError: (error) => errors.push(error),
      limits: { ...STATUS_SERVER_LIMITS, ...limits },
    });
    const bound = await server.listening;
    if (bound === undefined) throw new Error(`status server did not listen: ${errors.join('; ')}`);
    return bound.port;
  }

  afterEach(async () => {
    await server?.close();
    server = undefined;
    current = snapshotOf('running', true);
    errors.length = 0;
  });

  it('answers /healthz with 200 and /readyz with 200 while everything is ready', async () => {
    const port = await start();
    expect(await ask(port, '/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    const ready = await ask(port, '/readyz');
    expect(ready).toMatchObject({ status: 200, body: 'ready\n' });
    expect(ready.headers['cache-control']).toBe('no-store');
  });

  it('answers /readyz with 503 naming what is not ready, and 200 again once it is', async () => {
    const port = await start();
    current = snapshotOf('running', false);
    expect(await ask(port, '/readyz')).toMatchObject({ status: 503, body: 'not ready:\n  proxy (sidecar): readiness probe not passing\n' });
    current = snapshotOf('stopping', true);
    expect(await ask(port, '/readyz')).toMatchObject({ status: 503, body: 'not ready:\n  sidecar-init: stopping\n' });
    current = snapshotOf('running', true);
    expect((await ask(port, '/readyz?verbose')).status).toBe(200);
  });

  it('answers /status with JSON, processes in plan order', async () => {
    const port = await start();
    const answer = await ask(port, '/status');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answer.body)).toEqual({
      phase: 'running',
      ready: true,
      reapedOrphans: 3,
      teardownSeconds: null,
      processes: [
        { name: 'proxy', role: 'sidecar', state: 'running', pid: 41, ready: true, restarts: 1, lastExit: null, statusText: null },
        {
          name: 'migrate',
          role: 'init',
          state: 'exited',
          pid: null,
          ready: false,
          restarts: 0,
          lastExit: { code: 0, signal: null, at: '2026-01-01T00:00:00.000Z' },
          statusText: null,
        },
        { name: 'job', role: 'app', state: 'running', pid: 43, ready: true, restarts: 0, lastExit: null, statusText: null },
      ],
    });
  });

  it('answers /metrics in the Prometheus text format', async () => {
    const port = await start();
    const answer = await ask(port, '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const restarts = parsePrometheusText(answer.body).find((family) => family.name === 'sidecar_init_process_restarts');
    expect(restarts?.samples.map((sample) => [sample.labels.name, sample.value])).toEqual([
      ['proxy', 1],
      ['migrate', 0],
      ['job', 0],
    ]);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const port = await start();
    const answer = await ask(port, '/status', 'HEAD');
    expect(answer.status).toBe(200);
    expect(Number(answer.headers['content-length'])).toBeGreaterThan(0);
    expect(answer.body).toBe('');
  });

  it('answers 404 for any other path and 405 for any other method', async () => {
    const port = await start();
    expect(await ask(port, '/')).toMatchObject({ status: 404 });
    expect(await ask(port, '/healthz/extra')).toMatchObject({ status: 404 });
    const post = await ask(port, '/readyz', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect((await ask(port, '/metrics', 'DELETE')).status).toBe(405);
  });

  it('answers a request that is not HTTP with 400, closes it, and goes on answering', async () => {
    const port = await start();
    expect(await rawExchange(port, '\x16\x03\x01 not http at all\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await rawExchange(port, `GET /${'x'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`)).toMatch(/^HTTP\/1\.1 (400|431) /);
    expect((await ask(port, '/healthz')).status).toBe(200);
  });

  it('answers 500 when no snapshot can be had, and goes on answering', async () => {
    const port = await start();
    const failing = current;
    current = new Proxy(failing, {
      get() {
        throw new Error('no snapshot');
      },
    });
    expect(await ask(port, '/status')).toMatchObject({ status: 500, body: 'status unavailable: Error: no snapshot\n' });
    current = failing;
    expect((await ask(port, '/status')).status).toBe(200);
  });

  it('closes connections that are kept alive when it closes', async () => {
    const port = await start();
    const socket = connect(port, HOST);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    const answered = new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${HOST}\r\nConnection: keep-alive\r\n\r\n`);
    await answered;
    await server?.close();
    await closed;
    await expect(ask(port, '/healthz')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('reports a port that is taken and carries on without listening', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, HOST, resolve));
    const { port } = holder.address() as { port: number };
    try {
      server = startStatusServer({ address: { host: HOST, port }, source, onError: (error) => errors.push(error) });
      expect(await server.listening).toBeUndefined();
      expect(errors.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['EADDRINUSE']);
      await server.close();
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('answers pipelined requests in order on one kept-alive connection, and HTTP/1.0 once', async () => {
    const port = await start();
    const pipelined = await keptAlive(port, 'GET /healthz HTTP/1.1\r\n\r\nGET /nope HTTP/1.1\r\n\r\nHEAD /readyz HTTP/1.1\r\n\r\n', 3);
    expect(pipelined.match(/^HTTP\/1\.1 \d+/gm)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 404', 'HTTP/1.1 200']);
    expect(await rawExchange(port, 'GET /healthz HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*connection: close\r\n\r\nok\n$/);
  });

  it('answers a request with a body and closes its connection, the body unread', async () => {
    const port = await start();
    const answer = await rawExchange(port, 'POST /readyz HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello');
    expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n[\s\S]*allow: GET, HEAD\r\n/);
  });

  it('closes a client that sends more requests ahead of their answers than it may queue, and answers others', async () => {
    const port = await start(0, { answerTimeoutMs: 300 });
    const flood = 'GET /status HTTP/1.1\r\n\r\n'.repeat(Math.ceil((4 * STATUS_SERVER_LIMITS.maxQueuedBytes) / 24));
    // Never reads an answer, and sends more until a write fails: the server closed it.
    const socket = connect(port, HOST);
    socket.pause();
    const more = (): unknown => socket.write(flood, (error) => (error ? undefined : more()));
    socket.on('connect', more);
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => socket.on('error', resolve));
    expect(error.code).toMatch(/^(ECONNRESET|EPIPE)$/);
    expect((await ask(port, '/healthz')).status).toBe(200);
  });

  it('stops answering a client that does not read its answers, and closes it at the answer deadline', async () => {
    let answered = 0;
    const big = snapshotOf('running', true);
    const processes = Array.from({ length: 5_000 }, (_, index) => ({ ...big.processes[0]!, name: `proxy-${index}` }));
    current = { ...big, processes };
    const counting: StatusSource = {
      snapshot: () => {
        answered += 1;
        return current;
      },
    };
    server = startStatusServer({
      address: { host: HOST, port: 0 },
      source: counting,
      onError: (error) => errors.push(error),
      limits: { ...STATUS_SERVER_LIMITS, answerTimeoutMs: 300 },
    });
    const port = (await server.listening)!.port;
    // 200 requests for a /status of about 1 MB each, well within what may be queued; no answer is read.
    const socket = connect(port, HOST, () => socket.write('GET /status HTTP/1.1\r\n\r\n'.repeat(200)));
    socket.pause();
    // One more request now and then: once sidecar-init has closed the connection, a write fails.
    const knock = setInterval(() => socket.write('GET /healthz HTTP/1.1\r\n\r\n'), 50);
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => socket.on('error', resolve));
    clearInterval(knock);
    expect(error.code).toMatch(/^(ECONNRESET|EPIPE)$/);
    // Answers stopped once they backed up (socket buffers hold a few), long before all 200.
    expect(answered).toBeLessThan(50);
  });

  it('closes a connection whose request head is not complete in time, however slowly its bytes come', async () => {
    const headTimeoutMs = 300;
    const port = await start(0, { headTimeoutMs });
    const opened = performance.now();
    const socket = connect(port, HOST);
    socket.on('error', () => {});
    const head = 'GET /healthz HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    let sent = 0;
    const trickle = setInterval(() => {
      if (!socket.connecting && sent < head.length) socket.write(head[sent++]!);
    }, 20);
    await new Promise((resolve) => socket.on('close', resolve));
    clearInterval(trickle);
    const heldMs = performance.now() - opened;
    expect(heldMs).toBeGreaterThanOrEqual(headTimeoutMs);
    // A liveness bound: the deadline and one sweep after it, with room for a loaded machine.
    expect(heldMs).toBeLessThan(5_000);
    expect(sent).toBeLessThan(head.length);
  });

  it('closes a kept-alive connection left idle after its answer', async () => {
    const port = await start(0, { idleTimeoutMs: 300 });
    const socket = connect(port, HOST, () => socket.write('GET /healthz HTTP/1.1\r\n\r\n'));
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
    });
    await new Promise((resolve) => socket.on('close', resolve));
    expect(received).toMatch(/^HTTP\/1\.1 200 [\s\S]*connection: keep-alive\r\n/);
  });

  it('when full, closes its oldest connection to answer a new one', async () => {
    const port = await start(0, { maxConnections: 3 });
    const held = [];
    // Each is answered first, so the server has taken each in, in this order.
    for (let index = 0; index < 3; index += 1) held.push(await heldOpen(port));
    expect((await ask(port, '/healthz')).status).toBe(200);
    await held[0]!.closed;
    expect(held.slice(1).map((connection) => connection.socket.destroyed)).toEqual([false, false]);
    for (const connection of held) connection.socket.destroy();
  });

  it("when full, closes the oldest connection of the address that holds the most, never another address's", async () => {
    const port = await start(0, { maxConnections: 3 });
    // The kubelet's connection is the oldest of all, but its address holds one; the flood's holds two.
    const kubelet = await heldOpen(port, '127.0.0.2');
    const flood = [await heldOpen(port), await heldOpen(port)];
    expect((await ask(port, '/healthz')).status).toBe(200);
    await flood[0]!.closed;
    expect([kubelet.socket.destroyed, flood[1]!.socket.destroyed]).toEqual([false, false]);
    for (const connection of [kubelet, ...flood]) connection.socket.destroy();
  });

  it('answers a target in absolute form as HTTP/1.1 requires (GET http://host/healthz)', async () => {
    const port = await start();
    expect(await rawExchange(port, 'GET http://sidecar.local:8080/healthz HTTP/1.1\r\nConnection: close\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 200 /,
    );
    expect(await rawExchange(port, 'GET http://sidecar.local/nowhere HTTP/1.1\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 404 /);
  });

  it('listens on IPv6 and IPv4 alike on ::', async () => {
    const port = await start(0, {}, '::');
    for (const host of ['127.0.0.1', '::1']) {
      expect(await rawExchange(port, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n', host)).toMatch(/^HTTP\/1\.1 200 /);
    }
  });
});

/** Sends raw bytes on a connection it keeps open until `answers` answers came; returns what was received. */
function keptAlive(port: number, bytes: string, answers: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, HOST, () => socket.write(bytes));
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      received += chunk;
      if ((received.match(/^HTTP\/1\.1 /gm) ?? []).length < answers) return;
      socket.destroy();
      resolve(received);
    });
    socket.on('error', reject);
  });
}

/** A connection that was answered once and stays open, kept alive. */
async function heldOpen(port: number, localAddress?: string): Promise<{ socket: ReturnType<typeof connect>; closed: Promise<void> }> {
  const socket = connect({ port, host: HOST, localAddress }, () => socket.write('GET /healthz HTTP/1.1\r\n\r\n'));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise((resolve) => socket.once('data', resolve));
  return { socket, closed };
}

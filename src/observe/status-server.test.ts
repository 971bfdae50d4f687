import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePrometheusText } from '../../test/support/prometheus-parser.ts';
import type { StatusServer } from './status-server.ts';
import { startStatusServer } from './status-server.ts';
import type { StatusSnapshot, StatusSource } from './status-snapshot.ts';

const HOST = '127.0.0.1';

function snapshotOf(phase: StatusSnapshot['phase'], proxyReady: boolean): StatusSnapshot {
  return {
    phase,
    reapedOrphans: 3,
    teardownSeconds: undefined,
    processes: [
      {
        name: 'proxy',
        role: 'sidecar',
        state: 'running',
        pid: 41,
        gatesReadiness: true,
        probeReady: proxyReady,
        restarts: 1,
        lastExit: undefined,
      },
      {
        name: 'migrate',
        role: 'init',
        state: 'exited',
        pid: undefined,
        gatesReadiness: false,
        probeReady: true,
        restarts: 0,
        lastExit: { code: 0, signal: null, at: '2026-01-01T00:00:00.000Z' },
      },
      { name: 'job', role: 'app', state: 'running', pid: 43, gatesReadiness: true, probeReady: true, restarts: 0, lastExit: undefined },
    ],
  };
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
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, HOST, () => socket.write(bytes));
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

  async function start(port = 0): Promise<number> {
    server = startStatusServer({ address: { host: HOST, port }, source, onError: (error) => errors.push(error) });
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
});

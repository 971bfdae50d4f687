import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../test/support/commands.ts';
import { FIXTURES, NODE } from '../../test/support/supervisor.ts';
import { decodeHealthResponse, encodeHealthRequest } from './grpc-health-wire.ts';
import { createGrpcProbe } from './grpc-probe.ts';

// Against a real gRPC server with the standard health service
// (test/fixtures/grpc-health-server.mjs, @grpc/grpc-js and grpc-health-check).

/** Liveness bound for one attempt on a loaded machine; the hang test uses a short one on purpose. */
const ATTEMPT_TIMEOUT_MS = 5_000;
const HANG_TIMEOUT_MS = 300;

interface GrpcServer {
  readonly port: number;
  /** Changes the status of the server and its service; resolves once the server says it has. */
  setStatus(status: 'SERVING' | 'NOT_SERVING' | 'UNKNOWN'): Promise<void>;
}

let servers: ChildProcessByStdio<Writable, Readable, null>[] = [];

afterEach(async () => {
  await Promise.all(
    servers.map((server) => {
      const gone = new Promise((resolve) => server.once('exit', resolve));
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
      else return undefined;
      return gone;
    }),
  );
  servers = [];
});

/** Starts the fixture and resolves once it announces its port. */
async function startServer(initial: string, service = ''): Promise<GrpcServer> {
  const child = spawn(NODE, [`${FIXTURES}grpc-health-server.mjs`, 'grpc', '0', initial, service], { stdio: ['pipe', 'pipe', 'inherit'] });
  servers.push(child);
  const lines = createInterface({ input: child.stdout });
  const next = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const onLine = (line: string) => {
        if (!line.startsWith(prefix)) return;
        lines.off('line', onLine);
        resolve(line.slice(prefix.length));
      };
      lines.on('line', onLine);
      child.once('exit', (code) => reject(new Error(`the gRPC server exited (${code}) before saying ${prefix}`)));
    });
  const port = Number(await next('listening '));
  return {
    port,
    async setStatus(status) {
      const acknowledged = next(`status ${status}`);
      child.stdin.write(`${status}\n`);
      await acknowledged;
    },
  };
}

const check = (port: number, service = '', timeoutMs = ATTEMPT_TIMEOUT_MS) =>
  createGrpcProbe('127.0.0.1', port, service).check(timeoutMs, new AbortController().signal);

describe('createGrpcProbe', () => {
  it('describes itself as it is written after --ready', () => {
    expect(createGrpcProbe('127.0.0.1', 9090, '').description).toBe('grpc://127.0.0.1:9090');
    expect(createGrpcProbe('::1', 9090, 'my.pkg.Svc').description).toBe('grpc://[::1]:9090/my.pkg.Svc');
  });

  it('passes on SERVING, for the whole server and for a named service', async () => {
    const server = await startServer('SERVING', 'my.pkg.Svc');
    expect(await check(server.port)).toEqual({ ok: true });
    expect(await check(server.port, 'my.pkg.Svc')).toEqual({ ok: true });
  });

  it('fails on NOT_SERVING and passes once the server turns SERVING; fails again on UNKNOWN', async () => {
    const server = await startServer('NOT_SERVING', 'my.pkg.Svc');
    expect(await check(server.port, 'my.pkg.Svc')).toEqual({
      ok: false,
      reason: `grpc://127.0.0.1:${server.port}/my.pkg.Svc: NOT_SERVING`,
    });
    await server.setStatus('SERVING');
    expect(await check(server.port, 'my.pkg.Svc')).toEqual({ ok: true });
    await server.setStatus('UNKNOWN');
    expect(await check(server.port, 'my.pkg.Svc')).toEqual({ ok: false, reason: `grpc://127.0.0.1:${server.port}/my.pkg.Svc: UNKNOWN` });
  });

  it('fails with the gRPC status when the service is unknown to the health service', async () => {
    const server = await startServer('SERVING');
    const outcome = await check(server.port, 'no.such.Service');
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.reason).toMatch(/^grpc:\/\/127\.0\.0\.1:\d+\/no\.such\.Service: NOT_FOUND \(5\)/);
  });

  it('fails with UNIMPLEMENTED when the server has no health service', async () => {
    const server = await startServer('none');
    const outcome = await check(server.port);
    expect(!outcome.ok && outcome.reason).toMatch(/^grpc:\/\/127\.0\.0\.1:\d+: UNIMPLEMENTED \(12\)/);
  });

  it('fails with the timeout when the server accepts the call and never answers', async () => {
    const server = await startServer('hang');
    expect(await check(server.port, '', HANG_TIMEOUT_MS)).toEqual({ ok: false, reason: `timed out after ${HANG_TIMEOUT_MS}ms` });
    // The server is still there, and the abandoned call left the probe able to try again.
    expect(await check(server.port, '', HANG_TIMEOUT_MS)).toEqual({ ok: false, reason: `timed out after ${HANG_TIMEOUT_MS}ms` });
  });

  it('fails on a closed port, naming the error', async () => {
    const port = await freePort();
    expect(await check(port)).toEqual({ ok: false, reason: `grpc://127.0.0.1:${port}: ECONNREFUSED` });
  });
});

describe('the health messages', () => {
  it('encodes the service as field 1 inside a gRPC frame; the whole server as an empty message', () => {
    expect([...encodeHealthRequest('')]).toEqual([0, 0, 0, 0, 0]);
    expect([...encodeHealthRequest('ab')]).toEqual([0, 0, 0, 0, 4, 0x0a, 2, 0x61, 0x62]);
  });

  it('reads the status, skipping unknown fields; an empty message is UNKNOWN', () => {
    expect(decodeHealthResponse(Buffer.of(0, 0, 0, 0, 2, 0x08, 1))).toEqual({ ok: true, status: 1 });
    expect(decodeHealthResponse(Buffer.of(0, 0, 0, 0, 0))).toEqual({ ok: true, status: 0 });
    expect(decodeHealthResponse(Buffer.of(0, 0, 0, 0, 6, 0x12, 2, 0x61, 0x62, 0x08, 2))).toEqual({ ok: true, status: 2 });
  });

  it('refuses what is not one whole, uncompressed message', () => {
    expect(decodeHealthResponse(Buffer.of(0, 0, 0))).toEqual({ ok: false, reason: 'the answer has no message' });
    expect(decodeHealthResponse(Buffer.of(1, 0, 0, 0, 2, 0x08, 1)).ok).toBe(false);
    expect(decodeHealthResponse(Buffer.of(0, 0, 0, 0, 3, 0x08, 1)).ok).toBe(false);
    expect(decodeHealthResponse(Buffer.of(0, 0, 0, 0, 2, 0x08, 0x80)).ok).toBe(false);
  });
});

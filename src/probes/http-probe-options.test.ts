import { describe, expect, it } from 'vitest';
import { useHttpServer } from '../../test/support/http-server.ts';
import { createProbe } from './create-probe.ts';
import { createHttpProbe } from './http-probe.ts';

const ATTEMPT_TIMEOUT_MS = 1_000;

// Answers with the status its path names: /204 answers 204.
const server = useHttpServer((request, response) => {
  const status = Number(request.url?.slice(1));
  response.writeHead(Number.isInteger(status) && status >= 200 ? status : 404).end();
});

const check = (probe: ReturnType<typeof createHttpProbe>) => probe.check(ATTEMPT_TIMEOUT_MS, new AbortController().signal);

describe('createHttpProbe headers', () => {
  it('sends the headers given', async () => {
    await check(createHttpProbe(`${server.base}/200`, { headers: { 'X-Probe-Token': 's3cret', Host: 'mesh.local' } }));
    expect(server.requests[0]!.headers).toMatchObject({
      'x-probe-token': 's3cret',
      host: 'mesh.local',
      'user-agent': 'sidecar-init-probe',
    });
  });

  it('replaces a default header whatever the case of its name, sending it once', async () => {
    await check(createHttpProbe(`${server.base}/200`, { headers: { 'User-Agent': 'kube-probe/1.33' } }));
    const userAgents = server.requests[0]!.rawHeaders.filter(
      (_value, index, raw) => index % 2 === 0 && raw[index]!.toLowerCase() === 'user-agent',
    );
    expect(userAgents).toHaveLength(1);
    expect(server.requests[0]!.headers['user-agent']).toBe('kube-probe/1.33');
  });
});

describe('createHttpProbe expectStatus', () => {
  it('passes 2xx and 3xx when no list is given', async () => {
    await expect(check(createHttpProbe(`${server.base}/204`))).resolves.toEqual({ ok: true });
    await expect(check(createHttpProbe(`${server.base}/301`))).resolves.toEqual({ ok: true });
    await expect(check(createHttpProbe(`${server.base}/404`))).resolves.toMatchObject({ ok: false });
  });

  it('passes exactly the statuses listed, even outside 2xx/3xx', async () => {
    const probe = (status: number) => createHttpProbe(`${server.base}/${status}`, { expectStatus: [200, 401] });
    await expect(check(probe(401))).resolves.toEqual({ ok: true });
    await expect(check(probe(200))).resolves.toEqual({ ok: true });
  });

  it('fails a status outside the list, naming what was expected', async () => {
    await expect(check(createHttpProbe(`${server.base}/302`, { expectStatus: [200] }))).resolves.toEqual({
      ok: false,
      reason: `${server.base}/302: HTTP 302 (expected 200)`,
    });
  });
});

describe('createProbe for http', () => {
  it('passes headers and expectStatus from the spec', async () => {
    const probe = createProbe(
      { kind: 'http', url: `${server.base}/503`, headers: { 'x-ready-check': '1' }, expectStatus: [503] },
      { env: {}, cwd: undefined },
    );
    await expect(check(probe)).resolves.toEqual({ ok: true });
    expect(server.requests[0]!.headers['x-ready-check']).toBe('1');
  });
});

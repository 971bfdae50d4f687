import { describe, expect, it } from 'vitest';
import { useHttpServer } from '../../test/support/http-server.ts';
import { createHttpProbe } from './http-probe.ts';

const ATTEMPT_TIMEOUT_MS = 10_000;
const SHORT_TIMEOUT_MS = 200;
/** Generous bound on how late a timed-out attempt may come back. */
const TIMEOUT_SLACK_MS = 2_000;

const server = useHttpServer((request, response) => {
  switch (request.url) {
    case '/ok':
      response.writeHead(200).end('a body the probe discards');
      return;
    case '/redirect':
      // If the probe followed this, it would land on a 503 and fail.
      response.writeHead(302, { location: '/unavailable' }).end();
      return;
    case '/unavailable':
      response.writeHead(503).end();
      return;
    case '/hang':
      return; // never answers
    default:
      response.writeHead(404).end();
  }
});

function check(path: string, timeoutMs = ATTEMPT_TIMEOUT_MS) {
  return createHttpProbe(`${server.base}${path}`).check(timeoutMs, new AbortController().signal);
}

describe('createHttpProbe', () => {
  it('succeeds on 200', async () => {
    await expect(check('/ok')).resolves.toEqual({ ok: true });
  });

  it('succeeds on 302 without following the redirect', async () => {
    await expect(check('/redirect')).resolves.toEqual({ ok: true });
  });

  it('fails on 503, naming the status', async () => {
    await expect(check('/unavailable')).resolves.toEqual({ ok: false, reason: `${server.base}/unavailable: HTTP 503` });
  });

  it('fails at its timeout when the server never answers, and closes its connection', async () => {
    const startedAt = performance.now();
    const outcome = await check('/hang', SHORT_TIMEOUT_MS);
    const elapsedMs = performance.now() - startedAt;
    expect(outcome).toEqual({ ok: false, reason: `timed out after ${SHORT_TIMEOUT_MS}ms` });
    expect(elapsedMs).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 5);
    expect(elapsedMs).toBeLessThan(SHORT_TIMEOUT_MS + TIMEOUT_SLACK_MS);
    await expect.poll(() => server.connections()).toBe(0);
  });

  it('ends the attempt when aborted', async () => {
    const controller = new AbortController();
    const attempt = createHttpProbe(`${server.base}/hang`).check(ATTEMPT_TIMEOUT_MS, controller.signal);
    setTimeout(() => controller.abort(), 50);
    await expect(attempt).resolves.toEqual({ ok: false, reason: 'aborted' });
    await expect.poll(() => server.connections()).toBe(0);
  });

  it('keeps no connection open between attempts', async () => {
    const probe = createHttpProbe(`${server.base}/ok`);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await expect(probe.check(ATTEMPT_TIMEOUT_MS, new AbortController().signal)).resolves.toEqual({ ok: true });
    }
    await expect.poll(() => server.connections()).toBe(0);
  });

  it('fails on a refused connection', async () => {
    await server.close();
    const outcome = await check('/ok');
    expect(outcome).toEqual({ ok: false, reason: `${server.base}/ok: ECONNREFUSED` });
  });

  it('rejects a URL that is not http://', () => {
    expect(() => createHttpProbe('https://127.0.0.1/')).toThrow(/unsupported URL/);
  });
});

import { describe, expect, it } from 'vitest';
import { useHttpServer } from '../../test/support/http-server.ts';
import type { HookContext } from './hook.ts';
import { runHook } from './run-hook.ts';
import { BODY_LINE_MAX_BYTES } from './run-http-hook.ts';

const HOOK_TIMEOUT_MS = 10_000;
const SHORT_TIMEOUT_MS = 200;
/** Generous bound on how late a timed-out or aborted hook may come back. */
const TIMEOUT_SLACK_MS = 2_000;

const server = useHttpServer((request, response) => {
  const path = request.url?.split('?')[0];
  switch (path) {
    case '/drain':
      response.writeHead(200).end('draining, 3 connections left\r\nsecond line\n');
      return;
    case '/long':
      response.writeHead(200).end('x'.repeat(BODY_LINE_MAX_BYTES * 3));
      return;
    case '/empty':
      response.writeHead(204).end();
      return;
    case '/redirect':
      response.writeHead(302, { location: '/unavailable' }).end();
      return;
    case '/unavailable':
      response.writeHead(503).end('overloaded\n');
      return;
    case '/hang':
      return; // never answers
    default:
      response.writeHead(404).end();
  }
});

function contextWithLines(): HookContext & { readonly lines: string[] } {
  const lines: string[] = [];
  return { env: {}, cwd: undefined, lines, onOutputLine: (line) => lines.push(line) };
}

function http(path: string, method = 'GET', timeoutMs = HOOK_TIMEOUT_MS) {
  return { kind: 'http', url: `${server.base}${path}`, method, timeoutMs } as const;
}

const noAbort = () => new AbortController().signal;

describe('runHook (http)', () => {
  it('sends the method and path, closes the connection, and logs the first line of the body', async () => {
    const context = contextWithLines();
    await expect(runHook(http('/drain?who=proxy', 'POST'), context, noAbort())).resolves.toEqual({
      ok: true,
      elapsedMs: expect.any(Number),
    });
    const seen = server.requests.map(({ method, url, headers }) => ({ method, url, connection: headers.connection }));
    expect(seen).toEqual([{ method: 'POST', url: '/drain?who=proxy', connection: 'close' }]);
    expect(context.lines).toEqual(['draining, 3 connections left']);
    await expect.poll(() => server.connections()).toBe(0);
  });

  it('cuts the logged line at the bound', async () => {
    const context = contextWithLines();
    await expect(runHook(http('/long'), context, noAbort())).resolves.toMatchObject({ ok: true });
    expect(context.lines).toEqual(['x'.repeat(BODY_LINE_MAX_BYTES)]);
  });

  it('logs nothing for an empty body', async () => {
    const context = contextWithLines();
    await expect(runHook(http('/empty'), context, noAbort())).resolves.toMatchObject({ ok: true });
    expect(context.lines).toEqual([]);
  });

  it('succeeds on a redirect without following it', async () => {
    await expect(runHook(http('/redirect'), contextWithLines(), noAbort())).resolves.toMatchObject({ ok: true });
    expect(server.requests.map(({ url }) => url)).toEqual(['/redirect']);
  });

  it('fails on a non-2xx/3xx status, naming it, and still logs the body line', async () => {
    const context = contextWithLines();
    await expect(runHook(http('/unavailable'), context, noAbort())).resolves.toEqual({
      ok: false,
      reason: `GET ${server.base}/unavailable: HTTP 503`,
      elapsedMs: expect.any(Number),
    });
    expect(context.lines).toEqual(['overloaded']);
  });

  it('times out when the server never answers, and closes its connection', async () => {
    const outcome = await runHook(http('/hang', 'GET', SHORT_TIMEOUT_MS), contextWithLines(), noAbort());
    expect(outcome).toEqual({ ok: false, reason: `timed out after ${SHORT_TIMEOUT_MS}ms`, elapsedMs: expect.any(Number) });
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 5);
    expect(outcome.elapsedMs).toBeLessThan(SHORT_TIMEOUT_MS + TIMEOUT_SLACK_MS);
    await expect.poll(() => server.connections()).toBe(0);
  });

  it('ends promptly when aborted, and closes its connection', async () => {
    const controller = new AbortController();
    const running = runHook(http('/hang'), contextWithLines(), controller.signal);
    await expect.poll(() => server.requests.length).toBe(1);
    const abortedAt = performance.now();
    controller.abort();
    await expect(running).resolves.toMatchObject({ ok: false, reason: 'aborted' });
    expect(performance.now() - abortedAt).toBeLessThan(TIMEOUT_SLACK_MS);
    await expect.poll(() => server.connections()).toBe(0);
  });

  it('fails on a refused connection', async () => {
    await server.close();
    await expect(runHook(http('/drain'), contextWithLines(), noAbort())).resolves.toMatchObject({
      ok: false,
      reason: `GET ${server.base}/drain: ECONNREFUSED`,
    });
  });

  it('fails, without throwing, on a URL that is not http://', async () => {
    const hook = { kind: 'http', url: 'https://127.0.0.1/', method: 'GET', timeoutMs: HOOK_TIMEOUT_MS } as const;
    await expect(runHook(hook, contextWithLines(), noAbort())).resolves.toMatchObject({
      ok: false,
      reason: expect.stringMatching(/unsupported URL/),
    });
  });
});

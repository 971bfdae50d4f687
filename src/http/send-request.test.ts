import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useHttpServer } from '../../test/support/http-server.ts';
import { sendHttpRequest } from './send-request.ts';

const TIMEOUT_MS = 10_000;
const SHORT_TIMEOUT_MS = 200;
const TOKEN = 'Q-TOKEN-4711';

const server = useHttpServer((request, response) => {
  switch (request.url?.split('?')[0]) {
    case '/lines':
      response.writeHead(200).end('first line\r\nsecond line\n');
      return;
    case '/stream':
      // The first line, then a body that never ends: the answer must not wait for it.
      response.writeHead(200).write('draining\n');
      return;
    case '/hang':
      return;
    default:
      response.writeHead(404).end('not here');
  }
});

function get(path: string, options: { timeoutMs?: number; firstLineMaxBytes?: number } = {}, signal?: AbortSignal) {
  const url = new URL(`${server.base}${path}`);
  return sendHttpRequest({ url, method: 'GET', headers: { connection: 'close' }, timeoutMs: TIMEOUT_MS, ...options }, signal);
}

describe('sendHttpRequest', () => {
  it('answers with the status, and the first line of the body when asked', async () => {
    await expect(get('/lines')).resolves.toMatchObject({ kind: 'answered', status: 200, firstLine: '' });
    await expect(get('/lines', { firstLineMaxBytes: 100 })).resolves.toMatchObject({ kind: 'answered', firstLine: 'first line' });
    await expect(get('/lines', { firstLineMaxBytes: 5 })).resolves.toMatchObject({ kind: 'answered', firstLine: 'first' });
    await expect(get('/missing', { firstLineMaxBytes: 100 })).resolves.toMatchObject({
      kind: 'answered',
      status: 404,
      firstLine: 'not here',
    });
  });

  it('answers at the first line of a body that never ends, and closes its connection', async () => {
    await expect(get('/stream', { firstLineMaxBytes: 100 })).resolves.toMatchObject({ kind: 'answered', firstLine: 'draining' });
    await expect.poll(() => server.connections()).toBe(0);
  });

  it('times out, and aborts, with its connection closed before it resolves', async () => {
    await expect(get('/hang', { timeoutMs: SHORT_TIMEOUT_MS })).resolves.toMatchObject({ kind: 'timed-out' });
    const controller = new AbortController();
    const pending = get('/hang', {}, controller.signal);
    await expect.poll(() => server.requests.length).toBe(2);
    controller.abort();
    await expect(pending).resolves.toMatchObject({ kind: 'aborted' });
    await expect.poll(() => server.connections()).toBe(0);
  });

  it('carries the error code of a refused connection', async () => {
    await server.close();
    await expect(get('/lines')).resolves.toMatchObject({ kind: 'failed', code: 'ECONNREFUSED', reason: 'ECONNREFUSED' });
  });

  it('names the URL without its userinfo or query in every kind of result', async () => {
    const secretPath = `/hang?token=${TOKEN}`;
    const results = [
      await get(`/lines?token=${TOKEN}`),
      await get(secretPath, { timeoutMs: SHORT_TIMEOUT_MS }),
      await sendHttpRequest({
        url: new URL(`http://user:${TOKEN}@${server.base.slice('http://'.length)}/lines`),
        method: 'GET',
        headers: {},
        timeoutMs: TIMEOUT_MS,
      }),
    ];
    await server.close();
    results.push(await get(`/lines?token=${TOKEN}`));
    expect(results.map((result) => result.kind)).toEqual(['answered', 'timed-out', 'answered', 'failed']);
    for (const result of results) expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(results[0]?.url).toBe(`${server.base}/lines?***`);
    expect(results[2]?.url).toBe(`http://***@${server.base.slice('http://'.length)}/lines`);
  });

  it('fails, without throwing, on a header Node refuses to send', async () => {
    const url = new URL(`${server.base}/lines`);
    const result = await sendHttpRequest({ url, method: 'GET', headers: { 'x-bad': 'a\r\nb' }, timeoutMs: TIMEOUT_MS });
    expect(result).toMatchObject({ kind: 'failed', code: 'ERR_INVALID_CHAR' });
  });
});

describe('loading node:http', () => {
  // Evaluating node:http costs every start; a fresh Node process shows when it is loaded.
  it('happens with the first request, not when the client is imported', async () => {
    const module = JSON.stringify(new URL('./send-request.ts', import.meta.url).pathname);
    const script = `
      const loaded = () => process.moduleLoadList.includes('NativeModule http');
      const { sendHttpRequest } = await import(${module});
      const beforeFirst = loaded();
      // Port 1 on loopback: refused at once, which is still a request.
      const result = await sendHttpRequest({ url: new URL('http://127.0.0.1:1/'), method: 'GET', headers: {}, timeoutMs: 10000 });
      console.log(JSON.stringify({ beforeFirst, afterFirst: loaded(), kind: result.kind }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 15_000,
      killSignal: 'SIGKILL',
    });
    expect(JSON.parse(stdout)).toEqual({ beforeFirst: false, afterFirst: true, kind: 'failed' });
  });
});

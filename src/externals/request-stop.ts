import { createRequire } from 'node:module';

// The HTTP half of stopping an external: one request to the proxy's own quit
// endpoint (Istio's /quitquitquit, cloud-sql-proxy's, Linkerd's /shutdown).
// The answer is kept structured, because each kind leads somewhere else:
// 2xx means the proxy is on its way out; a refused connection means nothing
// listens any more (the proxy is gone or going); 404 means the endpoint is
// switched off (Linkerd without its shutdown flag) and a signal has to do.

// Not `import ... from 'node:http'`: see src/probes/http-probe.ts (~25 ms of startup).
// Required with the first request, so a start that stops no external over HTTP never evaluates node:http.
let httpRequest: typeof import('node:http').request | undefined;
function request(...args: Parameters<typeof import('node:http').request>) {
  httpRequest ??= (createRequire(import.meta.url)('node:http') as typeof import('node:http')).request;
  return httpRequest(...args);
}

export type StopRequestResult =
  | { readonly kind: 'accepted'; readonly status: number }
  | { readonly kind: 'refused' }
  | { readonly kind: 'rejected'; readonly status: number }
  | { readonly kind: 'failed'; readonly reason: string };

const USER_AGENT = 'sidecar-init-stop';

export function requestStop(url: string, method: string, timeoutMs: number): Promise<StopRequestResult> {
  const target = new URL(url);
  if (target.protocol !== 'http:')
    return Promise.resolve({ kind: 'failed', reason: `unsupported URL ${url} (expected http://HOST:PORT/PATH)` });
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: StopRequestResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      resolve(result);
    };
    // Its own socket, no keep-alive: the proxy is about to exit.
    const outgoing = request(target, { method, agent: false, headers: { 'user-agent': USER_AGENT, accept: '*/*', connection: 'close' } });
    const timer = setTimeout(() => settle({ kind: 'failed', reason: `${method} ${url}: no answer within ${timeoutMs}ms` }), timeoutMs);
    outgoing.once('response', (response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      response.on('error', () => {});
      settle(status >= 200 && status < 300 ? { kind: 'accepted', status } : { kind: 'rejected', status });
    });
    // on, not once: destroying the request may emit a second error.
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      settle(
        error.code === 'ECONNREFUSED'
          ? { kind: 'refused' }
          : { kind: 'failed', reason: `${method} ${url}: ${error.code ?? error.message}` },
      );
    });
    outgoing.end();
  });
}

import { createRequire } from 'node:module';
import type { Probe } from './probe.ts';
import { failure, runAttempt } from './run-attempt.ts';

// Ready on a 2xx or 3xx answer to a GET, as Kubernetes' httpGet probe, except
// that a redirect is not followed: a 3xx already proves the server is serving.

const USER_AGENT = 'sidecar-init-probe';

// Not `import ... from 'node:http'`: linking it as an ES module evaluates every
// export, and Node's http exports WebSocket and friends lazily from its fetch
// stack, which then loads on every start (measured: ~25 ms of startup, probe or
// not). require() reads only the one function.
const { request } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

export function createHttpProbe(url: string): Probe {
  const target = new URL(url);
  // Plan validation accepts http:// only; a different scheme here is a bug upstream.
  if (target.protocol !== 'http:') throw new Error(`http probe: unsupported URL ${url} (expected http://HOST:PORT/PATH)`);
  return {
    description: url,
    check: (timeoutMs, signal) =>
      runAttempt(timeoutMs, signal, (settle) => {
        // agent: false gives the request its own socket with keep-alive off, so
        // nothing lingers in a pool between attempts; the release destroys it.
        const outgoing = request(target, {
          method: 'GET',
          agent: false,
          headers: { 'user-agent': USER_AGENT, accept: '*/*', connection: 'close' },
        });
        outgoing.once('response', (response) => {
          const status = response.statusCode ?? 0;
          // The status is the answer; the body is discarded (resumed so it never backs
          // up, then dropped with the socket when the attempt is released).
          response.resume();
          response.on('error', noop);
          settle(isSuccessStatus(status) ? { ok: true } : failure(`${url}: HTTP ${status}`));
        });
        // on, not once: destroying the request later may emit a second error.
        outgoing.on('error', (error: NodeJS.ErrnoException) => settle(failure(`${url}: ${error.code ?? error.message}`)));
        outgoing.end();
        return () => {
          outgoing.destroy();
        };
      }),
  };
}

function isSuccessStatus(status: number): boolean {
  return status >= 200 && status < 400;
}

function noop(): void {}

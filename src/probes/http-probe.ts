import { createRequire } from 'node:module';
import type { Probe } from './probe.ts';
import { failure, runAttempt } from '../attempt/run-attempt.ts';

// Ready on a 2xx or 3xx answer to a GET, as Kubernetes' httpGet probe, except
// that a redirect is not followed: a 3xx already proves the server is serving.
// expectStatus narrows (or widens) that to an exact list, e.g. [200] for an
// endpoint that answers 3xx while still warming up, or [401] for one that is
// ready once it asks for credentials.

const USER_AGENT = 'sidecar-init-probe';

// Not `import ... from 'node:http'`: linking it as an ES module evaluates every
// export, and Node's http exports WebSocket and friends lazily from its fetch
// stack, which then loads on every start (measured: ~25 ms of startup, probe or
// not). require() reads only the one function, and only when the first request
// goes out: evaluating node:http costs a start without http probes ~5 ms.
let httpRequest: typeof import('node:http').request | undefined;
function request(...args: Parameters<typeof import('node:http').request>) {
  httpRequest ??= (createRequire(import.meta.url)('node:http') as typeof import('node:http')).request;
  return httpRequest(...args);
}

export interface HttpProbeOptions {
  /** Sent with every request; they replace the defaults of the same name (any case), as Kubernetes' httpHeaders. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Statuses that pass; undefined means any 2xx or 3xx. */
  readonly expectStatus?: readonly number[] | undefined;
}

export function createHttpProbe(url: string, options: HttpProbeOptions = {}): Probe {
  const target = new URL(url);
  // Plan validation accepts http:// only; a different scheme here is a bug upstream.
  if (target.protocol !== 'http:') throw new Error(`http probe: unsupported URL ${url} (expected http://HOST:PORT/PATH)`);
  // Built once, not per attempt.
  const headers = mergeHeaders(options.headers ?? {});
  const expected = options.expectStatus === undefined ? undefined : new Set(options.expectStatus);
  const expectedText = options.expectStatus?.join(', ');
  return {
    description: url,
    check: (timeoutMs, signal) =>
      runAttempt(timeoutMs, signal, (settle) => {
        // agent: false gives the request its own socket with keep-alive off, so
        // nothing lingers in a pool between attempts; the release destroys it.
        const outgoing = request(target, { method: 'GET', agent: false, headers });
        outgoing.once('response', (response) => {
          const status = response.statusCode ?? 0;
          // The status is the answer; the body is discarded (resumed so it never backs
          // up, then dropped with the socket when the attempt is released).
          response.resume();
          response.on('error', noop);
          if (expected === undefined) {
            settle(isSuccessStatus(status) ? { ok: true } : failure(`${url}: HTTP ${status}`));
          } else {
            settle(expected.has(status) ? { ok: true } : failure(`${url}: HTTP ${status} (expected ${expectedText})`));
          }
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

/**
 * Header names are case-insensitive, and Node sends both `user-agent` and
 * `User-Agent` if given both, so the user's names are lower-cased before they
 * replace a default.
 */
function mergeHeaders(custom: Readonly<Record<string, string>>): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*', connection: 'close' };
  for (const [name, value] of Object.entries(custom)) headers[name.toLowerCase()] = value;
  return headers;
}

function isSuccessStatus(status: number): boolean {
  return status >= 200 && status < 400;
}

function noop(): void {}

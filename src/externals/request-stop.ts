import { sendHttpRequest } from '../http/send-request.ts';
import { assertNever } from '../plan/assert-never.ts';
import { redactUrl } from '../support/redact-url.ts';

// The HTTP half of stopping an external: one request to the proxy's own quit
// endpoint (Istio's /quitquitquit, cloud-sql-proxy's, Linkerd's /shutdown).
// The answer is kept structured, because each kind leads somewhere else:
// 2xx means the proxy is on its way out; a refused connection means nothing
// listens any more (the proxy is gone or going); 404 means the endpoint is
// switched off (Linkerd without its shutdown flag) and a signal has to do.
// Reasons name the URL redacted: a quit URL may carry a token.

export type StopRequestResult =
  | { readonly kind: 'accepted'; readonly status: number }
  | { readonly kind: 'refused' }
  | { readonly kind: 'rejected'; readonly status: number }
  | { readonly kind: 'failed'; readonly reason: string };

// Its own socket, no keep-alive (src/http/ gives every request that): the proxy is about to exit.
const HEADERS = { 'user-agent': 'sidecar-init-stop', accept: '*/*', connection: 'close' } as const;

export async function requestStop(url: string, method: string, timeoutMs: number): Promise<StopRequestResult> {
  const target = new URL(url);
  if (target.protocol !== 'http:') return { kind: 'failed', reason: `unsupported URL ${redactUrl(url)} (expected http://HOST:PORT/PATH)` };
  const result = await sendHttpRequest({ url: target, method, headers: HEADERS, timeoutMs });
  switch (result.kind) {
    case 'answered':
      return result.status >= 200 && result.status < 300
        ? { kind: 'accepted', status: result.status }
        : { kind: 'rejected', status: result.status };
    case 'failed':
      return result.code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'failed', reason: `${method} ${result.url}: ${result.reason}` };
    case 'timed-out':
    case 'aborted':
      return { kind: 'failed', reason: `${method} ${result.url}: no answer within ${timeoutMs}ms` };
    default:
      return assertNever(result);
  }
}

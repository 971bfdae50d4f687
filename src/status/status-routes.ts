import { formatPrometheusText, PROMETHEUS_CONTENT_TYPE } from './prometheus-text.ts';
import { judgeReadiness } from './readiness-verdict.ts';
import { statusDocument } from './status-json.ts';
import { statusMetrics } from './status-metrics.ts';
import type { StatusSource } from '../runner/ports.ts';
import { assertNever } from '../plan/assert-never.ts';

// What each path answers, as a pure function of the request line and one
// snapshot: the HTTP plumbing in status-server.ts stays free of decisions, and
// every answer is tested without a socket.

export interface StatusResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
export const STATUS_PATHS = ['/healthz', '/readyz', '/status', '/metrics'] as const;
type StatusPath = (typeof STATUS_PATHS)[number];

export function answerStatusRequest(method: string | undefined, url: string | undefined, source: StatusSource): StatusResponse {
  const path = pathOf(url);
  if (!isStatusPath(path)) {
    return { status: 404, contentType: TEXT, body: `not found: ${path}; try ${STATUS_PATHS.join(', ')}\n` };
  }
  if (method !== 'GET' && method !== 'HEAD') {
    return { status: 405, contentType: TEXT, body: `${method ?? '?'} is not allowed; use GET or HEAD\n`, headers: { allow: 'GET, HEAD' } };
  }
  return answer(path, source);
}

function answer(path: StatusPath, source: StatusSource): StatusResponse {
  switch (path) {
    // Answering at all is the proof: the event loop that answers is the one that supervises.
    case '/healthz':
      return { status: 200, contentType: TEXT, body: 'ok\n' };
    case '/readyz': {
      const verdict = judgeReadiness(source.snapshot());
      if (verdict.ready) return { status: 200, contentType: TEXT, body: 'ready\n' };
      return { status: 503, contentType: TEXT, body: `not ready:\n${verdict.reasons.map((reason) => `  ${reason}\n`).join('')}` };
    }
    case '/status': {
      const document = statusDocument(source.snapshot());
      return { status: 200, contentType: JSON_TYPE, body: `${JSON.stringify(document, null, 2)}\n` };
    }
    case '/metrics':
      return { status: 200, contentType: PROMETHEUS_CONTENT_TYPE, body: formatPrometheusText(statusMetrics(source.snapshot())) };
    default:
      return assertNever(path);
  }
}

/** The path of a request target, in origin form (`/healthz?x`) or absolute form (`http://host/healthz`), which HTTP/1.1 servers must accept. */
function pathOf(url: string | undefined): string {
  const target = (url ?? '').replace(ABSOLUTE_FORM_PREFIX, '');
  if (target === '') return '/';
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/** A scheme and an authority: what an absolute-form target has before its path. */
const ABSOLUTE_FORM_PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

function isStatusPath(path: string): path is StatusPath {
  return (STATUS_PATHS as readonly string[]).includes(path);
}

import type { AttemptOutcome } from '../attempt/run-attempt.ts';
import { ABORTED_REASON, failure } from '../attempt/run-attempt.ts';
import type { HttpResult } from '../http/send-request.ts';
import { isSuccessStatus, sendHttpRequest } from '../http/send-request.ts';
import { assertNever } from '../plan/assert-never.ts';
import { redactUrl } from '../support/redact-url.ts';
import type { Probe } from './probe.ts';

// Ready on a 2xx or 3xx answer to a GET, as Kubernetes' httpGet probe, except
// that a redirect is not followed: a 3xx already proves the server is serving.
// expectStatus narrows (or widens) that to an exact list, e.g. [200] for an
// endpoint that answers 3xx while still warming up, or [401] for one that is
// ready once it asks for credentials.

const USER_AGENT = 'sidecar-init-probe';

export interface HttpProbeOptions {
  /** Sent with every request; they replace the defaults of the same name (any case), as Kubernetes' httpHeaders. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Statuses that pass; undefined means any 2xx or 3xx. */
  readonly expectStatus?: readonly number[] | undefined;
}

export function createHttpProbe(url: string, options: HttpProbeOptions = {}): Probe {
  const target = new URL(url);
  // Descriptions reach warn-level log lines; a token in the query or userinfo must not.
  const description = redactUrl(url);
  // Plan validation accepts http:// only; a different scheme here is a bug upstream.
  if (target.protocol !== 'http:') throw new Error(`http probe: unsupported URL ${description} (expected http://HOST:PORT/PATH)`);
  // Built once, not per attempt.
  const headers = mergeHeaders(options.headers ?? {});
  const expected = options.expectStatus === undefined ? undefined : new Set(options.expectStatus);
  const expectedText = options.expectStatus?.join(', ');
  const judge = (status: number): AttemptOutcome => {
    if (expected === undefined) return isSuccessStatus(status) ? { ok: true } : failure(`${description}: HTTP ${status}`);
    return expected.has(status) ? { ok: true } : failure(`${description}: HTTP ${status} (expected ${expectedText})`);
  };
  return {
    description,
    check: async (timeoutMs, signal) => {
      // The status is the answer; the body is dropped unread with the socket.
      const result = await sendHttpRequest({ url: target, method: 'GET', headers, timeoutMs }, signal);
      return toOutcome(result, timeoutMs, judge);
    },
  };
}

function toOutcome(result: HttpResult, timeoutMs: number, judge: (status: number) => AttemptOutcome): AttemptOutcome {
  switch (result.kind) {
    case 'answered':
      return judge(result.status);
    case 'failed':
      return failure(`${result.url}: ${result.reason}`);
    case 'timed-out':
      return failure(`timed out after ${timeoutMs}ms`);
    case 'aborted':
      return failure(ABORTED_REASON);
    default:
      return assertNever(result);
  }
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

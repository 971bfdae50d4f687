import type { HookSpec } from '../plan/plan.ts';
import type { AttemptOutcome } from '../attempt/run-attempt.ts';
import { ABORTED_REASON, failure } from '../attempt/run-attempt.ts';
import { isSuccessStatus, sendHttpRequest } from '../http/send-request.ts';
import { assertNever } from '../plan/assert-never.ts';
import { parseUrl, redactUrl } from '../support/redact-url.ts';
import type { HookContext } from './hook.ts';

// An http hook: ok iff the answer is 2xx or 3xx (a redirect is not followed),
// as Kubernetes' httpGet handler. Like the kubelet it reads the body, but only
// as far as its first line, which goes to the log; the rest is dropped with the
// socket. One request through src/http/, its socket destroyed whatever ends
// the attempt: answer, timeout or abort.

export type HttpHookSpec = Extract<HookSpec, { kind: 'http' }>;

/** The first line of the body that is logged is cut here: enough for "draining, 3 connections left". */
export const BODY_LINE_MAX_BYTES = 200;
const HEADERS = { 'user-agent': 'sidecar-init-hook', accept: '*/*', connection: 'close' } as const;

export async function runHttpHook(
  hook: HttpHookSpec,
  context: Pick<HookContext, 'onOutputLine'>,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  const target = parseUrl(hook.url);
  // Plan validation accepts http:// only; this keeps the "never rejects" promise if it did not.
  if (target?.protocol !== 'http:') return failure(`unsupported URL ${redactUrl(hook.url)} (expected http://HOST:PORT/PATH)`);
  const request = { url: target, method: hook.method, headers: HEADERS, timeoutMs: hook.timeoutMs, firstLineMaxBytes: BODY_LINE_MAX_BYTES };
  const result = await sendHttpRequest(request, signal);
  switch (result.kind) {
    case 'answered': {
      // Logged before the outcome resolves: nothing of the hook is logged after it.
      if (result.firstLine !== '') context.onOutputLine(result.firstLine, 'stdout');
      return isSuccessStatus(result.status) ? { ok: true } : failure(`${hook.method} ${result.url}: HTTP ${result.status}`);
    }
    case 'failed':
      return failure(`${hook.method} ${result.url}: ${result.reason}`);
    case 'timed-out':
      return failure(`timed out after ${hook.timeoutMs}ms`);
    case 'aborted':
      return failure(ABORTED_REASON);
    default:
      return assertNever(result);
  }
}

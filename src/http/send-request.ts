import { createRequire } from 'node:module';
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { MAX_TIMER_MS } from '../attempt/run-attempt.ts';
import { redactUrl } from '../support/redact-url.ts';
import { errorCode } from '../support/error-code.ts';

// The one HTTP client of sidecar-init: http probes, http hooks and an
// external's stop endpoint each send one request through it. Every request
// gets its own socket with keep-alive off (agent: false, Connection: close),
// so nothing lingers in a pool between attempts; a redirect is not followed
// (a 3xx already proves the server serves). The request ends, its socket
// destroyed, whichever comes first: the answer, the timeout or the abort,
// and only then does the promise resolve, so a caller that has the result
// knows nothing of the request is still alive. It never rejects. The URL in a
// result is redacted (src/support/redact-url.ts): results become log lines.

export interface HttpRequest {
  readonly url: URL;
  readonly method: string;
  /** Sent as given; lower-case names, so a caller's own replaces a default. */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /**
   * Read the body up to its first "\n", this many bytes, or its end, whichever
   * comes first, and answer with that line; 0 (the default): the status is
   * the whole answer and the body is dropped unread with the socket.
   */
  readonly firstLineMaxBytes?: number;
}

/** What http probes and hooks count as success, as Kubernetes does: any 2xx or 3xx. */
export function isSuccessStatus(status: number): boolean {
  return status >= 200 && status < 400;
}

/** Every kind carries the URL, redacted, for the caller's messages. */
export type HttpResult =
  | { readonly kind: 'answered'; readonly url: string; readonly status: number; readonly firstLine: string }
  | { readonly kind: 'failed'; readonly url: string; readonly code: string | undefined; readonly reason: string }
  | { readonly kind: 'timed-out'; readonly url: string }
  | { readonly kind: 'aborted'; readonly url: string };

type RequestFunction = (url: URL, options: RequestOptions) => ClientRequest;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = '\r';

// Not `import ... from 'node:http'`: linking it as an ES module evaluates every
// export, and Node's http exports WebSocket and friends lazily from its fetch
// stack, which then loads on every start (measured: ~25 ms of startup, request
// or not). require() reads only the one function, and only when the first
// request goes out: evaluating node:http costs a start without one ~5 ms.
const loaded: Partial<Record<'http:' | 'https:', RequestFunction>> = {};
function requestFunction(protocol: string): RequestFunction | undefined {
  if (protocol !== 'http:' && protocol !== 'https:') return undefined;
  loaded[protocol] ??= (
    createRequire(import.meta.url)(protocol === 'http:' ? 'node:http' : 'node:https') as typeof import('node:http')
  ).request;
  return loaded[protocol];
}

export function sendHttpRequest(request: HttpRequest, signal?: AbortSignal): Promise<HttpResult> {
  const url = redactUrl(request.url.href);
  if (signal?.aborted === true) return Promise.resolve({ kind: 'aborted', url });
  const send = requestFunction(request.url.protocol);
  if (send === undefined) {
    const reason = `unsupported scheme ${request.url.protocol} (expected http://HOST:PORT/PATH)`;
    return Promise.resolve({ kind: 'failed', url, code: undefined, reason });
  }
  return new Promise((resolve) => {
    let outgoing: ClientRequest;
    try {
      outgoing = send(request.url, { method: request.method, agent: false, headers: request.headers });
    } catch (error) {
      // A method or header Node refuses (a character that would split the request).
      resolve(failed(url, error));
      return;
    }
    let done = false;
    const finish = (result: HttpResult): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // Ends the response too; whatever it still emits finds `done` set.
      outgoing.destroy();
      resolve(result);
    };
    const onAbort = (): void => finish({ kind: 'aborted', url });
    // Clamped: Node turns a longer delay into 1 ms, which would fail every request at once.
    const timer = setTimeout(() => finish({ kind: 'timed-out', url }), Math.min(request.timeoutMs, MAX_TIMER_MS));
    signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.once('response', (response) => {
      const status = response.statusCode ?? 0;
      response.on('error', noop);
      const limit = request.firstLineMaxBytes ?? 0;
      if (limit <= 0) {
        // Resumed so it never backs up; dropped with the socket in finish().
        response.resume();
        finish({ kind: 'answered', url, status, firstLine: '' });
        return;
      }
      readFirstLine(response, limit, (firstLine) => finish({ kind: 'answered', url, status, firstLine }));
    });
    // on, not once: destroying the request later may emit a second error.
    outgoing.on('error', (error: Error) => finish(failed(url, error)));
    outgoing.end();
  });
}

function failed(url: string, error: unknown): HttpResult {
  const code = errorCode(error);
  const reason = code ?? (error instanceof Error ? error.message : String(error));
  return { kind: 'failed', url, code, reason };
}

/** Calls onLine once: at the first "\n", at maxBytes, or when the body ends (or breaks) first. A trailing "\r" is dropped. */
function readFirstLine(response: IncomingMessage, maxBytes: number, onLine: (line: string) => void): void {
  const chunks: Buffer[] = [];
  let length = 0;
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    const line = Buffer.concat(chunks).toString('utf8');
    onLine(line.endsWith(CARRIAGE_RETURN) ? line.slice(0, -1) : line);
  };
  response.on('data', (chunk: Buffer) => {
    if (done) return;
    const newline = chunk.indexOf(NEWLINE);
    const piece = chunk.subarray(0, Math.min(newline === -1 ? chunk.length : newline, maxBytes - length));
    chunks.push(piece);
    length += piece.length;
    if (newline !== -1 || length >= maxBytes) finish();
  });
  response.once('end', finish);
  // A body cut short still leaves the status as the answer.
  response.once('close', finish);
  response.on('error', finish);
}

function noop(): void {}

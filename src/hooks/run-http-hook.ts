import { createRequire } from 'node:module';
import type { IncomingMessage } from 'node:http';
import type { HookSpec } from '../config/plan.ts';
import type { AttemptOutcome } from '../attempt/run-attempt.ts';
import { failure, runAttempt } from '../attempt/run-attempt.ts';
import type { HookContext } from './hook.ts';

// An http hook: ok iff the answer is 2xx or 3xx (a redirect is not followed),
// as Kubernetes' httpGet handler. Like the kubelet it reads the body, but only
// as far as its first line, which goes to the log; the rest is dropped with the
// socket. One request, its own socket (agent: false, Connection: close),
// destroyed whatever ends the attempt: answer, timeout or abort.

export type HttpHookSpec = Extract<HookSpec, { kind: 'http' }>;

/** The first line of the body that is logged is cut here: enough for "draining, 3 connections left". */
export const BODY_LINE_MAX_BYTES = 200;
const USER_AGENT = 'sidecar-init-hook';
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = '\r';

// Not `import ... from 'node:http'`: see src/probes/http-probe.ts (linking it as
// an ES module loads Node's fetch stack on every start, ~25 ms). Required when the
// first http hook runs, so a start without one does not evaluate node:http at all.
let httpRequest: typeof import('node:http').request | undefined;
function request(...args: Parameters<typeof import('node:http').request>) {
  httpRequest ??= (createRequire(import.meta.url)('node:http') as typeof import('node:http')).request;
  return httpRequest(...args);
}

export function runHttpHook(hook: HttpHookSpec, context: Pick<HookContext, 'onOutputLine'>, signal: AbortSignal): Promise<AttemptOutcome> {
  const target = parseUrl(hook.url);
  // Plan validation accepts http:// only; this keeps the "never rejects" promise if it did not.
  if (target?.protocol !== 'http:') return Promise.resolve(failure(`unsupported URL ${hook.url} (expected http://HOST:PORT/PATH)`));
  const description = `${hook.method} ${hook.url}`;
  return runAttempt(hook.timeoutMs, signal, (settle) => {
    let released = false;
    const outgoing = request(target, {
      method: hook.method,
      agent: false,
      headers: { 'user-agent': USER_AGENT, accept: '*/*', connection: 'close' },
    });
    outgoing.once('response', (response) => {
      const status = response.statusCode ?? 0;
      const outcome = isSuccessStatus(status) ? ({ ok: true } as const) : failure(`${description}: HTTP ${status}`);
      readFirstLine(response, (line) => {
        // After a timeout or abort, destroying the socket ends the body too; the
        // outcome is already out by then and nothing may be logged after it.
        if (released) return;
        if (line !== '') context.onOutputLine(line, 'stdout');
        settle(outcome);
      });
    });
    // on, not once: destroying the request later may emit a second error.
    outgoing.on('error', (error: NodeJS.ErrnoException) => settle(failure(`${description}: ${error.code ?? error.message}`)));
    outgoing.end();
    return () => {
      released = true;
      outgoing.destroy();
    };
  });
}

/** Calls onLine once: at the first "\n", at BODY_LINE_MAX_BYTES, or when the body ends (or breaks) first. */
function readFirstLine(response: IncomingMessage, onLine: (line: string) => void): void {
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
    const piece = chunk.subarray(0, Math.min(newline === -1 ? chunk.length : newline, BODY_LINE_MAX_BYTES - length));
    chunks.push(piece);
    length += piece.length;
    if (newline !== -1 || length >= BODY_LINE_MAX_BYTES) finish();
  });
  response.once('end', finish);
  // A body cut short still leaves the status as the answer.
  response.once('close', finish);
  response.on('error', finish);
}

/** URL.parse, which needs Node 22.1 (engines says >=22). */
function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function isSuccessStatus(status: number): boolean {
  return status >= 200 && status < 400;
}

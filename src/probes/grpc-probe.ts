import { createRequire } from 'node:module';
import type { ClientHttp2Session } from 'node:http2';
import type { Probe } from './probe.ts';
import { errorCode } from '../support/error-code.ts';
import { failure, runAttempt } from '../attempt/run-attempt.ts';
import { decodeHealthResponse, encodeHealthRequest, GRPC_STATUS_NAMES, SERVING_STATUS_NAMES } from './grpc-health-wire.ts';

// Ready when grpc.health.v1.Health/Check answers SERVING, as Kubernetes' grpc
// probe (https://github.com/grpc/grpc/blob/master/doc/health-checking.md).
// Anything else fails with what came back in the reason: NOT_SERVING, UNKNOWN,
// SERVICE_UNKNOWN, a gRPC error status (e.g. 12 UNIMPLEMENTED from a server
// without the health service), an HTTP status, or the timeout.
//
// No gRPC library: one unary call over cleartext HTTP/2 is a POST with a
// 5-byte-framed protobuf message each way, and the two messages are one field
// each (grpc-health-wire.ts). node:http2 is required on the first attempt, so
// a run without grpc probes never loads it.

const CHECK_PATH = '/grpc.health.v1.Health/Check';
/** A HealthCheckResponse is 2 bytes; more than this is not a health answer, and is not buffered. */
const MAX_RESPONSE_BYTES = 4 * 1024;
const USER_AGENT = 'sidecar-init-probe';

let http2Connect: typeof import('node:http2').connect | undefined;
function connect(authority: string): ClientHttp2Session {
  http2Connect ??= (createRequire(import.meta.url)('node:http2') as typeof import('node:http2')).connect;
  return http2Connect(authority);
}

export function createGrpcProbe(host: string, port: number, service: string): Probe {
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const description = `grpc://${address}${service === '' ? '' : `/${service}`}`;
  // The request is the same every attempt: built once.
  const body = encodeHealthRequest(service);
  return {
    description,
    check: (timeoutMs, signal) =>
      runAttempt(timeoutMs, signal, (settle) => {
        const fail = (why: string) => settle(failure(`${description}: ${why}`));
        // One session per attempt, destroyed on release: nothing lingers between attempts.
        const session = connect(`http://${address}`);
        session.on('error', (error: Error) => fail(errorText(error)));
        const stream = session.request({
          ':method': 'POST',
          ':path': CHECK_PATH,
          'content-type': 'application/grpc',
          te: 'trailers',
          'user-agent': USER_AGENT,
        });
        const chunks: Buffer[] = [];
        let received = 0;
        let httpStatus = 0;
        let grpcStatus: string | undefined;
        let grpcMessage: string | undefined;
        const readStatus = (headers: Record<string, unknown>): void => {
          if (headers['grpc-status'] !== undefined) grpcStatus = String(headers['grpc-status']);
          if (headers['grpc-message'] !== undefined) grpcMessage = String(headers['grpc-message']);
        };
        stream.on('response', (headers) => {
          httpStatus = Number(headers[':status'] ?? 0);
          // A trailers-only answer (an error status) comes in the headers.
          readStatus(headers);
        });
        stream.on('trailers', readStatus);
        stream.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) return fail(`answered more than ${MAX_RESPONSE_BYTES} bytes; not a health response`);
          chunks.push(chunk);
        });
        stream.on('error', (error: Error) => fail(errorText(error)));
        stream.on('end', () => settle(verdict()));
        stream.end(body);

        const verdict = () => {
          if (httpStatus !== 200) return failure(`${description}: HTTP ${httpStatus}`);
          if (grpcStatus === undefined) return failure(`${description}: no grpc-status in the answer`);
          if (grpcStatus !== '0') {
            const name = GRPC_STATUS_NAMES[Number(grpcStatus)] ?? 'status';
            return failure(`${description}: ${name} (${grpcStatus})${grpcMessage ? `: ${printable(decodeGrpcMessage(grpcMessage))}` : ''}`);
          }
          const answer = decodeHealthResponse(Buffer.concat(chunks));
          if (!answer.ok) return failure(`${description}: ${answer.reason}`);
          if (answer.status === 1) return { ok: true } as const;
          return failure(`${description}: ${SERVING_STATUS_NAMES[answer.status] ?? `serving status ${answer.status}`}`);
        };
        return () => {
          stream.destroy();
          session.destroy();
        };
      }),
  };
}

/**
 * A stream ended by its session's failure reports ERR_HTTP2_STREAM_CANCEL, and
 * comes before the session's own error; the cause is what went wrong (ECONNREFUSED).
 */
function errorText(error: Error): string {
  return errorCode(error.cause) ?? errorCode(error) ?? error.message;
}

/** grpc-message is percent-encoded (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md). */
function decodeGrpcMessage(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The server's words go into a log line: bounded, control characters escaped. */
function printable(text: string): string {
  const bounded = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return JSON.stringify(bounded).slice(1, -1);
}

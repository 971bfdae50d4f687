import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { answerStatusRequest } from './status-routes.ts';
import type { StatusResponse } from './status-routes.ts';
import type { StatusSource } from './status-snapshot.ts';

// The status server: /healthz, /readyz, /status and /metrics over plain HTTP,
// off unless an address is given. It shares PID 1's event loop, so everything
// here is bounded: small header and request time limits, a cap on connections,
// no request body read, and no error of a client's can reach the supervisor.
// It is unref()'d (it never keeps sidecar-init alive on its own) and closed,
// connections included, before sidecar-init exits.

// Not `import ... from 'node:http'`: see src/probes/http-probe.ts (linking it as
// an ES module loads Node's fetch stack on every start).
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** A probe or a scrape answers in microseconds; a client this slow is stuck or hostile. */
const REQUEST_TIMEOUT_MS = 5_000;
const MAX_HEADER_BYTES = 8 * 1024;
/** kubelet's two probes and a scraper need a handful; the cap bounds what a flood can hold. */
const MAX_CONNECTIONS = 64;

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

export interface StatusServerOptions {
  readonly address: ListenAddress;
  readonly source: StatusSource;
  /** Listening failed (say the port is taken): reported, never fatal; supervision goes on without it. */
  readonly onError: (error: Error) => void;
}

export interface StatusServer {
  /** The address bound (port 0 resolved), or undefined when listening failed. */
  readonly listening: Promise<ListenAddress | undefined>;
  /** Stops listening and drops every connection, keep-alive ones included. */
  close(): Promise<void>;
}

export function startStatusServer(options: StatusServerOptions): StatusServer {
  const server = createServer(
    { maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS },
    (request, response) => respond(request, response, options.source),
  );
  server.maxConnections = MAX_CONNECTIONS;
  server.on('clientError', rejectBadRequest);
  server.unref();

  let listeningNow = false;
  const listening = new Promise<ListenAddress | undefined>((resolve) => {
    server.once('error', (error) => {
      options.onError(error);
      resolve(undefined);
    });
    server.listen(options.address.port, options.address.host, () => {
      listeningNow = true;
      const bound = server.address();
      resolve(typeof bound === 'object' && bound !== null ? { host: bound.address, port: bound.port } : options.address);
    });
  });
  // After listening, an error of the server itself is reported, never thrown.
  void listening.then(() => server.on('error', options.onError));

  return {
    listening,
    close: () =>
      new Promise<void>((resolve) => {
        if (!listeningNow) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function respond(request: IncomingMessage, response: ServerResponse, source: StatusSource): void {
  let answer: StatusResponse;
  try {
    answer = answerStatusRequest(request.method, request.url, source);
  } catch (error) {
    answer = { status: 500, contentType: 'text/plain; charset=utf-8', body: `status unavailable: ${String(error)}\n` };
  }
  response.writeHead(answer.status, {
    'content-type': answer.contentType,
    'content-length': Buffer.byteLength(answer.body),
    'cache-control': 'no-store',
    ...answer.headers,
  });
  // For HEAD, Node sends the headers and drops the body.
  response.end(answer.body);
}

/** A request that is not HTTP, too large or too slow: a 400 where the socket still takes one, then gone. */
function rejectBadRequest(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // Destroyed once the answer is flushed, so a client that never closes holds nothing.
  socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n', () => socket.destroy());
}

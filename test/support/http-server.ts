import { createServer } from 'node:http';
import type { IncomingMessage, RequestListener, Server } from 'node:http';
import { afterEach, beforeEach } from 'vitest';

const HOST = '127.0.0.1';

/** Per test: a node:http server on a fresh loopback port, answering with the test file's own routes. */
export interface TestHttpServer {
  /** `http://127.0.0.1:PORT`; still the same after `close()`, so a test can aim at a refused port. */
  readonly base: string;
  /** Every request received, in arrival order, recorded before the routes answer it. */
  readonly requests: readonly IncomingMessage[];
  /** How many connections the server holds open now. */
  connections(): Promise<number>;
  /** Drops every connection and stops listening; afterEach then has nothing left to close. */
  close(): Promise<void>;
}

interface ServerState {
  readonly server: Server;
  readonly base: string;
  readonly requests: IncomingMessage[];
}

/** Registers beforeEach/afterEach in the calling scope (file or describe). */
export function useHttpServer(routes: RequestListener): TestHttpServer {
  let state: ServerState | undefined;

  beforeEach(async () => {
    const requests: IncomingMessage[] = [];
    const server = createServer((request, response) => {
      requests.push(request);
      routes(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('server has no port');
    state = { server, base: `http://${HOST}:${address.port}`, requests };
  });

  afterEach(async () => {
    // Undefined when beforeEach itself failed; vitest runs afterEach anyway.
    if (state === undefined) return;
    const { server } = state;
    state = undefined;
    await closeServer(server);
  });

  const current = (): ServerState => {
    if (state === undefined) throw new Error('http server used outside a test');
    return state;
  };
  return {
    get base() {
      return current().base;
    },
    get requests() {
      return current().requests;
    },
    connections() {
      const { server } = current();
      return new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    },
    close() {
      return closeServer(current().server);
    },
  };
}

async function closeServer(server: Server): Promise<void> {
  if (!server.listening) return;
  // close() alone would wait for a request still open, such as one the routes never answer.
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

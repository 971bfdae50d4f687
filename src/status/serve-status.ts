import type { Logger } from 'pino';
import type { StatusAddress } from '../plan/plan.ts';
import { errorCode } from '../support/error-code.ts';
import { formatAddress } from '../support/format-address.ts';
import type { StatusSource } from '../runner/ports.ts';

export interface RunningStatusServer {
  /** Closes the server and its connections; sidecar-init calls it before it exits. */
  close(): Promise<void>;
}

/** No address configured; listening; or the address cannot be listened on, and why (one line, for the log and the termination message). */
export type StatusServerStart =
  | { readonly kind: 'off' }
  | { readonly kind: 'listening'; readonly server: RunningStatusServer }
  | { readonly kind: 'failed'; readonly reason: string };

/**
 * Starts the status server when an address is configured, and only then loads
 * it; resolves once it listens or cannot. sidecar-init waits for it before
 * anything starts, and a server that cannot listen fails the start: the
 * container's readinessProbe and livenessProbe ask this server, and a taken
 * port in a pod is held by another container for the pod's life, so going on
 * without it (or retrying) would leave the pod unready with nothing to say why
 * but a log line. One line names the address and the cause; no stack.
 */
export async function serveStatus(address: StatusAddress | undefined, source: StatusSource, logger: Logger): Promise<StatusServerStart> {
  if (address === undefined) return { kind: 'off' };
  const { startStatusServer } = await import('./status-server.ts');
  const where = formatAddress(address.host, address.port);
  let listenError: Error | undefined;
  let listening = false;
  const server = startStatusServer({
    address,
    source,
    onError: (error) => {
      // Before it listens the start fails, said once below; an error of the listening server is one line, and it goes on.
      if (!listening) listenError = error;
      else logger.error(errorFields(where, error), `the status server on ${where} failed: ${describeListenError(error)}`);
    },
  });
  const bound = await server.listening;
  if (bound === undefined) {
    const cause = listenError === undefined ? 'it did not listen' : describeListenError(listenError);
    const reason = `the status server cannot listen on ${where}: ${cause}; nothing was started`;
    logger.error(errorFields(where, listenError), reason);
    return { kind: 'failed', reason };
  }
  listening = true;
  const url = `http://${formatAddress(bound.host, bound.port)}`;
  logger.info({ event: 'status-server-listening', host: bound.host, port: bound.port }, `status server listening on ${url}`);
  return { kind: 'listening', server };
}

/** The error's code, never the error itself: pino would write its whole stack into the JSON line. */
function errorFields(address: string, error: Error | undefined) {
  return { event: 'status-server-failed', address, code: errorCode(error) };
}

/** Why a listen failed, in words, with what to do about the usual causes. */
function describeListenError(error: Error): string {
  switch (errorCode(error)) {
    case 'EADDRINUSE':
      return 'the port is taken (in a pod, another container listens on it); choose another port for --status-addr';
    case 'EACCES':
      return 'permission denied (a port below 1024 needs root or CAP_NET_BIND_SERVICE); choose a port of 1024 or above';
    case 'EADDRNOTAVAIL':
      return 'no interface of this host has that address; use :PORT for every interface, or an address of this host';
    default:
      return error.message;
  }
}

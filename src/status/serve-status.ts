import type { Logger } from 'pino';
import type { StatusAddress } from '../plan/plan.ts';
import { formatAddress } from '../support/format-address.ts';
import type { StatusSource } from './status-snapshot.ts';

export interface RunningStatusServer {
  /** Closes the server and its connections; sidecar-init calls it before it exits. */
  close(): Promise<void>;
}

/**
 * Starts the status server when an address is configured, and only then loads
 * it. It is not waited for: supervision starts at once, and a server that
 * cannot listen is logged and left out, never a reason to fail the pod.
 */
export async function serveStatus(
  address: StatusAddress | undefined,
  source: StatusSource,
  logger: Logger,
): Promise<RunningStatusServer | undefined> {
  if (address === undefined) return undefined;
  const { startStatusServer } = await import('./status-server.ts');
  const where = formatAddress(address.host, address.port);
  const server = startStatusServer({
    address,
    source,
    onError: (error) =>
      logger.error({ event: 'status-server-failed', address: where, err: error }, `status server on ${where} failed; running without it`),
  });
  void server.listening.then((bound) => {
    if (bound === undefined) return;
    const url = `http://${formatAddress(bound.host, bound.port)}`;
    logger.info({ event: 'status-server-listening', host: bound.host, port: bound.port }, `status server listening on ${url}`);
  });
  return server;
}

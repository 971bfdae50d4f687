import type { Logger } from 'pino';
import type { Supervision } from '../runner/supervise.ts';
import { judgeReadiness } from '../status/readiness-verdict.ts';
import { statusDocument } from '../status/status-json.ts';
import type { ControlServer } from './control-server.ts';

/**
 * Opens the control socket when a path is configured, and only then loads its
 * code. One that cannot be opened is logged and left out: the pod runs on
 * without it, as it does without a status server that cannot listen.
 */
export async function serveControlSocket(
  path: string | undefined,
  supervision: Pick<Supervision, 'status' | 'control'>,
  reapedOrphans: () => number,
  logger: Logger,
): Promise<ControlServer | undefined> {
  if (path === undefined) return undefined;
  const { serveControl } = await import('./control-server.ts');
  try {
    return await serveControl(
      path,
      {
        status: () => {
          const snapshot = supervision.status(reapedOrphans());
          return statusDocument(snapshot, judgeReadiness(snapshot).ready);
        },
        act: (command, uid) => supervision.control(command, uid),
      },
      logger,
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.error({ event: 'control-failed', path }, `control socket ${path} could not be opened; running without it: ${message}`);
    return undefined;
  }
}

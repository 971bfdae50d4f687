import type { Logger } from 'pino';
import { defaultControlDir, defaultControlPath } from '../plan/control-socket.ts';
import type { ControlSocket } from '../plan/plan.ts';
import type { ControlSource } from '../runner/ports.ts';
import { statusDocument } from '../status/status-json.ts';
import { prepareControlDir, removeControlDir } from './control-dir.ts';
import type { ControlHandlers, ControlServer } from './control-server.ts';
import type { ServerIdentity } from './protocol.ts';

/**
 * Opens the control socket: at --control PATH, or by default in this uid's
 * own folder (control-dir.ts), and only then loads its code. One that cannot
 * be opened is logged and left out: the pod runs on without it, as it does
 * without a status server that cannot listen. The default socket is a
 * convenience: where it cannot be (a read-only /tmp) that is said at debug,
 * not as an error, except a folder someone else made, which is suspicious and a
 * warning, and a second sidecar-init of this uid, which is said at info with
 * the first one's pid: `ctl` without a flag reaches that one, not this.
 */
export async function serveControlSocket(
  control: ControlSocket,
  source: ControlSource,
  identity: ServerIdentity,
  logger: Logger,
): Promise<ControlServer | undefined> {
  const handlers: ControlHandlers = {
    identity,
    status: () => statusDocument(source.snapshot()),
    act: (command, uid) => source.control(command, uid),
  };
  switch (control.kind) {
    case 'none':
      return undefined;
    case 'path':
      return await open(control.path, handlers, logger, 'error');
    case 'default':
      return await openDefault(handlers, logger);
  }
}

async function openDefault(handlers: ControlHandlers, logger: Logger): Promise<ControlServer | undefined> {
  const uid = process.geteuid?.() ?? 0;
  const dir = defaultControlDir(uid);
  const prepared = prepareControlDir(dir, uid);
  if (!prepared.ok) {
    logger[prepared.foreign ? 'warn' : 'debug'](
      { event: 'control-failed', path: defaultControlPath(uid) },
      `the default control socket was not opened: ${prepared.reason}`,
    );
    return undefined;
  }
  const server = await open(defaultControlPath(uid), handlers, logger, 'debug');
  if (server === undefined) {
    if (prepared.created) removeControlDir(dir);
    return undefined;
  }
  return {
    path: server.path,
    close: async () => {
      await server.close();
      if (prepared.created) removeControlDir(dir);
    },
  };
}

async function open(
  path: string,
  handlers: ControlHandlers,
  logger: Logger,
  failureLevel: 'error' | 'debug',
): Promise<ControlServer | undefined> {
  const { serveControl, ControlSocketTakenError } = await import('./control-server.ts');
  try {
    return await serveControl(path, handlers, logger, failureLevel === 'debug' ? 'debug' : 'info');
  } catch (error) {
    if (error instanceof ControlSocketTakenError && failureLevel === 'debug') {
      const holder = error.holderPid === undefined ? 'another sidecar-init' : `sidecar-init pid ${error.holderPid}`;
      logger.info(
        { event: 'control-failed', path, holderPid: error.holderPid ?? null },
        `the default control socket ${path} is served by ${holder}, so \`sidecar-init ctl\` without --control reaches that one; ` +
          'running without it: give this one --control PATH (or SIDECAR_INIT_CONTROL) to reach it',
      );
      return undefined;
    }
    const message = error instanceof Error ? error.message : String(error);
    logger[failureLevel]({ event: 'control-failed', path }, `control socket ${path} could not be opened; running without it: ${message}`);
    return undefined;
  }
}

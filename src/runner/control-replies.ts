import type { ControlCommand, Effect, LifecycleEventBody } from '../lifecycle/events.ts';
import type { LifecycleLog } from './lifecycle-log.ts';
import type { ControlReply } from './ports.ts';

// Matches control requests with the reducer's replies: each request becomes a
// 'control' event with an id, and the 'control-reply' effect with that id
// answers it. Every request is logged with the uid that asked, once answered.

interface Pending {
  readonly command: ControlCommand;
  readonly uid: number;
  readonly resolve: (reply: ControlReply) => void;
}

export function createControlReplies(log: LifecycleLog) {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  return {
    ask(command: ControlCommand, uid: number, dispatch: (event: LifecycleEventBody) => void): Promise<ControlReply> {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, { command, uid, resolve });
        dispatch({ type: 'control', id, command, uid });
      });
    },
    reply(effect: Extract<Effect, { type: 'control-reply' }>): void {
      const request = pending.get(effect.id);
      if (request === undefined) return;
      pending.delete(effect.id);
      const { command, uid } = request;
      const fields = {
        event: 'control',
        command: command.kind,
        uid,
        ok: effect.ok,
        ...('signal' in command ? { signal: command.signal } : {}),
      };
      const logger = loggerFor(log, command.name);
      if (effect.ok) logger.info(fields, `uid ${uid} asked over the control socket: ${effect.message}`);
      else logger.warn(fields, `refused uid ${uid}'s ${command.kind} over the control socket: ${effect.message}`);
      request.resolve({ ok: effect.ok, message: effect.message });
    },
  };
}

/** A request may name a process the plan does not have: then the line is the pod's, with the name given. */
function loggerFor(log: LifecycleLog, name: string) {
  try {
    return log.of(name);
  } catch {
    return log.pod.child({ proc: name });
  }
}

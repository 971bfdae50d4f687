import type { ProcessDraft } from './entry.ts';
import type { Argv } from './normalize-command.ts';
import { createDefaultRestart } from './normalize-restart.ts';
import type { Role } from './plan.ts';

/** A process with every default: an --init or --sidecar flag, or the app given as operands. */
export function createProcessDraft(name: string, role: Role, command: Argv): ProcessDraft {
  return {
    name,
    role,
    command,
    env: {},
    cwd: undefined,
    readiness: undefined,
    liveness: undefined,
    restart: createDefaultRestart(role),
    fatal: false,
    postStart: undefined,
    preStop: undefined,
    stopSignal: undefined,
    graceMs: undefined,
    signalTarget: undefined,
    successCodes: [],
    after: undefined,
  };
}

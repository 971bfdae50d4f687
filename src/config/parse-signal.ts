import { constants } from 'node:os';
import { fail, ok, quote, type Result } from './result.ts';

// Signals are given by name, as `kill -l` lists them, in any case and with or
// without the SIG prefix: quit, QUIT and SIGQUIT are all SIGQUIT. Numbers are
// refused: they differ between architectures, names do not.

const SIGNAL_HINT = 'use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional)';

export function parseSignal(text: string): Result<NodeJS.Signals> {
  if (/^\d+$/.test(text)) return fail(signalNumberMessage(text));
  const upper = text.toUpperCase();
  const name = upper.startsWith('SIG') ? upper : `SIG${upper}`;
  if (!Object.hasOwn(constants.signals, name)) return fail(`${quote(text)} is not a signal; ${SIGNAL_HINT}`);
  return ok(name as NodeJS.Signals);
}

/** For a number where a signal belongs, e.g. `stopSignal: 3` in YAML. */
export function signalNumberMessage(text: string): string {
  return `${text} is a signal number; give the signal by name, e.g. SIGQUIT`;
}

/** SIGKILL and SIGSTOP never reach a process's handlers, so the supervisor cannot see them to rewrite them. */
export function isUncatchable(signal: NodeJS.Signals): boolean {
  return signal === 'SIGKILL' || signal === 'SIGSTOP';
}

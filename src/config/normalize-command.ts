import type { Origin, Report } from './problem.ts';
import { splitCommand } from './split-command.ts';

export type Argv = readonly [string, ...string[]];

const COMMAND_HINT = 'give the program and its arguments, e.g. "envoy -c /etc/envoy.yaml"';

/** A command string (split like a shell) or list, as argv; reports and returns undefined when unusable. */
export function normalizeCommand(command: string | readonly string[], origin: Origin, report: Report): Argv | undefined {
  const words = typeof command === 'string' ? splitCommand(command) : { ok: true as const, value: command };
  if (!words.ok) {
    report(origin, words.message);
    return undefined;
  }
  const [program, ...args] = words.value;
  if (program === undefined || program === '') {
    report(origin, `${program === undefined ? 'the command' : 'the program name'} is empty; ${COMMAND_HINT}`);
    return undefined;
  }
  return [program, ...args];
}

import { bareNumberMessage, parseDuration } from './duration.ts';
import { createExecHook, normalizeHook } from './normalize-hook.ts';
import { normalizeCommand } from './normalize-command.ts';
import type { DrainSpec } from './plan.ts';
import type { Origin, Report } from './problem.ts';
import type { Salvaged } from './salvage.ts';
import type { RawConfig } from './schema.ts';

type RawDrain = NonNullable<Salvaged<RawConfig['drain']>>;

/** `drain:` in the file: a duration (a plain delay) or a hook mapping; never a bare command string. */
export function normalizeFileDrain(raw: RawDrain, origin: Origin, report: Report): DrainSpec | undefined {
  if (typeof raw !== 'string') {
    const hook = normalizeHook(raw, origin, report);
    return hook === undefined ? undefined : { kind: 'hook', hook };
  }
  const delay = parseDuration(raw);
  if (delay.ok) return { kind: 'delay', ms: delay.value };
  const hint = raw.trim() === '' ? '' : `; to run a command, write drain: {exec: ${JSON.stringify(raw)}}`;
  report(origin, `${delay.message}${hint}`);
  return undefined;
}

/**
 * `--drain DURATION|CMD`: a value that reads as a duration is a delay, anything
 * else a command split like a shell. A bare number is refused, not run as a
 * program named "5".
 */
export function normalizeDrainFlag(value: string, origin: Origin, report: Report): DrainSpec | undefined {
  const delay = parseDuration(value);
  if (delay.ok) return { kind: 'delay', ms: delay.value };
  if (/^\d+(?:\.\d+)?$/.test(value)) {
    report(origin, bareNumberMessage(value));
    return undefined;
  }
  const command = normalizeCommand(value, origin, report);
  return command === undefined ? undefined : { kind: 'hook', hook: createExecHook(command) };
}

import * as z from 'zod';
import { bareNumberMessage, DURATION_PATTERN, formatDuration } from './duration.ts';
import { signalNumberMessage } from './parse-signal.ts';
import { listAlternatives } from './result.ts';
import type { WholeNumberRange } from './whole-number.ts';

// Field builders shared by the schema files. Values with a grammar of their
// own (durations, signal names, ranges) are only typed here; the normalize
// steps check them with the same code as the flags. The `pattern`, `minimum`
// and `type: integer` in `meta` are for editors, through the JSON Schema.

export function duration(description: string, defaultMs?: number) {
  // `grace: 5` reaches zod as a number: say what a duration needs.
  const error = (issue: { input?: unknown }) => (typeof issue.input === 'number' ? bareNumberMessage(String(issue.input)) : undefined);
  return z.string({ error }).meta({
    description,
    pattern: DURATION_PATTERN,
    ...(defaultMs === undefined ? {} : { default: formatDuration(defaultMs) }),
    examples: ['500ms', '5s', '1m30s'],
  });
}

export function wholeNumber(description: string, range: WholeNumberRange) {
  return z.number().meta({ description, type: 'integer', minimum: range.min, maximum: range.max });
}

export function signalName(description: string) {
  const error = (issue: { input?: unknown }) => (typeof issue.input === 'number' ? signalNumberMessage(String(issue.input)) : undefined);
  return z.string({ error }).meta({ description, examples: ['SIGQUIT', 'INT'] });
}

/**
 * A check for a mapping that takes exactly one of `keys` (a probe's kind, a
 * hook's exec or http). It runs only when every field is valid, so a broken
 * field is reported once, as itself.
 */
export function exactlyOneOf(keys: readonly string[]) {
  return (value: Record<string, unknown>, context: z.core.$RefinementCtx<Record<string, unknown>>): void => {
    const given = keys.filter((key) => value[key] !== undefined);
    if (given.length === 1) return;
    const message =
      given.length === 0
        ? `give one of ${listAlternatives(keys)}`
        : `give only one of ${listAlternatives(keys)}; this has ${given.join(' and ')}`;
    context.addIssue({ code: 'custom', message, input: value });
  };
}

import * as z from 'zod';
import { fail, ok, type Result } from '../support/result.ts';
import { quote } from '../support/message-text.ts';
import { parsedWith } from './schema-fields.ts';

// Durations read like Go's and Kubernetes': 500ms, 5s, 1m, 1h, combined as
// 1m30s; a decimal such as 1.5s is fine. A bare number is refused: "5" could
// mean seconds or milliseconds, and guessing would hide the mistake.

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
type Unit = keyof typeof UNIT_MS;

/** Also the `pattern` of duration fields in the JSON Schema. */
export const DURATION_PATTERN = '^(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))+$';
const DURATION = new RegExp(DURATION_PATTERN);
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const BARE_NUMBER = /^\d+(?:\.\d+)?$/;
/** Digits, dots, units and a sign only: meant as a duration, even when it is not a valid one (-1s, 1..5s, 5S). */
const DURATION_LIKE = /^[-+]?[\d.]+(?:ms|s|m|h)?(?:[\d.]+(?:ms|s|m|h)?)*$/i;

/**
 * Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer setTimeout
 * fires at once, so a longer deadline would end a startup immediately.
 */
export const MAX_DURATION_MS = 2_147_483_647;

export const DURATION_HINT = 'use e.g. 500ms, 5s, 1m';

export function parseDuration(text: string): Result<number> {
  if (BARE_NUMBER.test(text)) return fail(bareNumberMessage(text));
  if (!DURATION.test(text)) return fail(`${quote(text)} is not a duration; ${DURATION_HINT}`);
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(PART)) ms += Number(amount) * UNIT_MS[unit as Unit];
  ms = Math.round(ms);
  if (ms > MAX_DURATION_MS) {
    return fail(`${quote(text)} is too long; the most is ${formatDuration(MAX_DURATION_MS)} (Node's timer limit)`);
  }
  return ok(ms);
}

/** A duration where zero is nonsense (a probe period, timeout or deadline, a backoff). */
export function parsePositiveDuration(text: string): Result<number> {
  const ms = parseDuration(text);
  return ms.ok && ms.value === 0 ? fail(`${quote(text)} is zero; give a duration of at least 1ms`) : ms;
}

/** Whether a value that is not a duration was still meant as one (for --drain DURATION|CMD). */
export function looksLikeDuration(text: string): boolean {
  return DURATION_LIKE.test(text);
}

/** For a number where a duration belongs, e.g. `grace: 5` in YAML. */
export function bareNumberMessage(text: string): string {
  return `${text} has no unit; write e.g. ${text}s or ${text}ms`;
}

/** The shortest exact spelling of a whole number of milliseconds: 25000 → "25s", 90000 → "1m30s". */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = ms;
  let text = '';
  for (const unit of ['h', 'm', 's'] as const) {
    const amount = Math.floor(rest / UNIT_MS[unit]);
    if (amount > 0) text += `${amount}${unit}`;
    rest -= amount * UNIT_MS[unit];
  }
  return rest > 0 ? `${text}${rest}ms` : text;
}

/** A duration field of the file, in ms; the `pattern`, `default` and examples are for editors, through the JSON Schema. */
export function duration(description: string, defaultMs?: number, parse = parseDuration) {
  return parsedWith(durationText(description, defaultMs), parse);
}

/** As duration(), refusing zero. */
export function positiveDuration(description: string, defaultMs?: number) {
  return duration(description, defaultMs, parsePositiveDuration);
}

/** The text of a duration, before it is parsed (for a union with other forms, e.g. drain). */
export function durationText(description: string, defaultMs?: number) {
  // `grace: 5` reaches zod as a number: say what a duration needs.
  const error = (issue: { input?: unknown }) => (typeof issue.input === 'number' ? bareNumberMessage(String(issue.input)) : undefined);
  return z.string({ error }).meta({
    description,
    pattern: DURATION_PATTERN,
    ...(defaultMs === undefined ? {} : { default: formatDuration(defaultMs) }),
    examples: ['500ms', '5s', '1m30s'],
  });
}

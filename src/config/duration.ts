import { fail, ok, quote, type Result } from './result.ts';

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

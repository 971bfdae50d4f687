import * as z from 'zod';
import { fail, ok, type Result } from './result.ts';
import { quote } from './message-text.ts';
import { checkedBy } from './schema-fields.ts';

// Counts and codes (maxRestarts, failureThreshold, exit codes, HTTP statuses,
// ports): whole numbers in a range, checked the same way whether the file gave
// a YAML number or a flag gave text.

export interface WholeNumberRange {
  /** What the number is, for messages: "an exit code". */
  readonly what: string;
  readonly min: number;
  readonly max?: number | undefined;
}

export const EXIT_CODE_RANGE: WholeNumberRange = { what: 'an exit code', min: 0, max: 255 };
export const HTTP_STATUS_RANGE: WholeNumberRange = { what: 'an HTTP status', min: 100, max: 599 };
export const PORT_RANGE: WholeNumberRange = { what: 'a port', min: 1, max: 65_535 };
export const FAILURE_THRESHOLD_RANGE: WholeNumberRange = { what: 'a failure threshold', min: 1 };
export const MAX_RESTARTS_RANGE: WholeNumberRange = { what: 'a number of restarts', min: 0 };
/**
 * A uid or gid a process can run as, or an external can be matched by. uid_t
 * and gid_t are 32-bit, but Node's spawn takes them as int32: a larger id
 * passes every other check and fails at its process's turn, after the
 * processes before it started ("options.uid must be int32"). So the range
 * is Node's, the same for `validate` and a run.
 */
export const ID_RANGE = { what: 'a uid', min: 0, max: 2 ** 31 - 1 } satisfies WholeNumberRange;

export function checkWholeNumber(value: number, range: WholeNumberRange): Result<number> {
  const inRange = value >= range.min && (range.max === undefined || value <= range.max);
  if (Number.isSafeInteger(value) && inRange) return ok(value);
  return fail(`${String(value)} is not ${range.what}; ${describeRange(range)}`);
}

/** For flags: decimal digits only, so "1e2", "0x8F" and " 143" are refused rather than guessed. */
export function parseWholeNumber(text: string, range: WholeNumberRange): Result<number> {
  if (!/^\d+$/.test(text)) return fail(`${quote(text)} is not ${range.what}; ${describeRange(range)}`);
  return checkWholeNumber(Number(text), range);
}

/** "use a whole number from 0 to 255", for a message. */
export function describeRange({ min, max }: WholeNumberRange): string {
  return max === undefined ? `use a whole number of ${min} or more` : `use a whole number from ${min} to ${max}`;
}

/** A whole-number field of the file; `type: integer` and the bounds are for editors, through the JSON Schema. */
export function wholeNumber(description: string, range: WholeNumberRange) {
  const field = z.number().meta({ description, type: 'integer', minimum: range.min, maximum: range.max });
  return field.check(checkedBy((value: number) => checkWholeNumber(value, range)));
}

import { isRecord } from '../support/is-record.ts';
import * as z from 'zod';
import { fileOrigin, type Origin, type PathSegment, type Report } from './config-error.ts';
import { type Result, fail, ok } from '../support/result.ts';
import { listAlternatives, quote } from '../support/message-text.ts';
import { closestMatch, didYouMean } from '../support/closest-match.ts';

// The glue between zod and this project's messages. Each field of the file is
// checked once: zod checks its type, then the same parser the flags use checks
// its value (parsedWith), so a field's problems and its plan value come from
// one place. Zod's own issues are worded here (describeIssue) and become
// problems at their field paths (reportIssues).

// The config is validated once per start, so zod's compiled fast path buys
// nothing; its eval probe also touches globalThis.navigator, which makes Node
// load its fetch stack (measured: ~40 ms of a 140 ms start).
z.config({ jitless: true });

/** `schema`, then `parse` on its value; a parse failure is an issue at the field, with the parser's message. */
export function parsedWith<Schema extends z.ZodType, Out>(schema: Schema, parse: (value: z.output<Schema>) => Result<Out>) {
  return schema.transform((value, context): Out => {
    const result = parse(value);
    if (result.ok) return result.value;
    context.issues.push({ code: 'custom', message: result.message, input: value });
    return z.NEVER;
  });
}

/**
 * A check by `parse` for a value that stays as written (a whole number, an
 * HTTP method): unlike parsedWith it keeps the field's `default` and
 * `examples` in the JSON Schema, which zod leaves out for transformed fields.
 */
export function checkedBy<T>(parse: (value: T) => Result<unknown>) {
  return z.superRefine<T>((value, context) => {
    const result = parse(value);
    if (!result.ok) context.addIssue({ code: 'custom', message: result.message, input: value });
  });
}

/**
 * A mapping that takes only these keys. An unknown key is usually a typo, so
 * its message lists the keys accepted there and suggests the closest one (one
 * line per key: zod gives one issue for all of a mapping's unknown keys).
 */
export function mapping<Shape extends z.core.$ZodLooseShape>(shape: Shape, describeKey?: (key: string) => string | undefined) {
  const accepted = Object.keys(shape);
  const message = (key: string) => describeKey?.(key) ?? unknownKeyMessage(key, accepted);
  const error = (issue: z.core.$ZodRawIssue) => (issue.code === 'unrecognized_keys' ? issue.keys.map(message).join('\n') : undefined);
  return z.strictObject(shape, { error });
}

/** `candidates`: the names to suggest from, when more than the keys accepted here (a field of another role). */
export function unknownKeyMessage(key: string, accepted: readonly string[], candidates = accepted): string {
  const suggestion = closestMatch(key, candidates);
  return `unknown key ${quote(key)}${suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`}; accepted here: ${accepted.join(', ')}`;
}

/**
 * A check for a mapping that takes exactly one of `keys` (a probe's kind, a
 * hook's exec or http). It looks only at which keys were written, so it is
 * added with `when: () => true` and runs beside the fields' own problems.
 */
export function exactlyOneOf(keys: readonly string[]) {
  return (value: unknown, context: z.core.$RefinementCtx<unknown>): void => {
    if (!isRecord(value)) return;
    const given = keys.filter((key) => value[key] !== undefined);
    if (given.length === 1) return;
    const message =
      given.length === 0
        ? `give one of ${listAlternatives(keys)}`
        : `give only one of ${listAlternatives(keys)}; this has ${given.join(' and ')}`;
    context.addIssue({ code: 'custom', message, input: value });
  };
}

/**
 * One of a few words (a log level, an output mode). A value outside them is
 * named with what it should be, the same for the file and for a flag.
 */
export function oneOf<const Words extends readonly [string, ...string[]]>(
  what: string,
  words: Words,
  list: (words: readonly string[]) => string = listAlternatives,
) {
  const error = (issue: z.core.$ZodRawIssue) =>
    issue.code === 'invalid_value'
      ? `${describeValue(issue.input)} is not ${what}${suggestFor(issue.input, words)}; use ${list(words)}`
      : undefined;
  return z.enum(words, { error });
}

/** An issue's `params` that name a sibling key as the related place, e.g. the first use of a repeated signal. */
export interface RelatedKey {
  readonly relatedKey: string;
}

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

/** The error map of the file check: zod's issues in this project's words, the value received and what would be accepted. */
export function describeIssue(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return expectedGot(EXPECTED[issue.expected] ?? issue.expected, issue.input);
    case 'invalid_union':
      return expectedGot(unionExpected(issue.errors), issue.input);
    case 'invalid_value': {
      const values = issue.values.map((v) => String(v));
      return `${describeValue(issue.input)} is not accepted${suggestFor(issue.input, values)}; use ${values.join(', ')}`;
    }
    case 'too_small':
      return issue.origin === 'array' ? `is an empty list; give at least ${String(issue.minimum)} item` : undefined;
    default:
      return undefined;
  }
}

/** " (did you mean X?)" when a written string is a typo of one of `words` (a preset, a policy, a role), else "". */
export function suggestFor(input: unknown, words: readonly string[]): string {
  return typeof input === 'string' ? didYouMean(input, words) : '';
}

/** A short description of a YAML value: strings quoted, collections named. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return quote(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (value === null) return 'an empty value (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

function expectedGot(expected: string, input: unknown): string {
  return input === undefined ? `is required; give ${expected}` : `expected ${expected}, got ${describeValue(input)}`;
}

function unionExpected(branches: readonly (readonly z.core.$ZodIssue[])[]): string {
  const expected = branches
    .flat()
    .flatMap((issue) => (issue.code === 'invalid_type' && issue.path.length === 0 ? [EXPECTED[issue.expected] ?? issue.expected] : []));
  return expected.length === 0 ? 'another value' : listAlternatives(expected);
}

/** Zod's issues as problems at their field paths: in the file, or all at one flag (`originOf`). */
export function reportIssues(
  issues: readonly z.core.$ZodIssue[],
  report: Report,
  originOf: (path: readonly PathSegment[]) => Origin = (path) => fileOrigin(...path),
  prefix: readonly PathSegment[] = [],
): void {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)))];
    switch (issue.code) {
      case 'unrecognized_keys': {
        const messages = issue.message.split('\n');
        for (const [index, key] of issue.keys.entries()) report(originOf([...path, key]), messages[index] ?? `unknown key ${quote(key)}`);
        break;
      }
      case 'invalid_union': {
        // When only one branch accepted the value's type (a list with a bad item,
        // a probe mapping with a bad field), its issues say more than "expected a
        // string or a mapping".
        const typed = issue.errors.filter((branch) => !branch.some((inner) => inner.code === 'invalid_type' && inner.path.length === 0));
        if (typed.length === 1) reportIssues(typed[0]!, report, originOf, path);
        else report(originOf(path), issue.message);
        break;
      }
      default: {
        const related = (issue.code === 'custom' ? (issue.params as RelatedKey | undefined) : undefined)?.relatedKey;
        report(originOf(path), issue.message, related === undefined ? undefined : originOf([...path.slice(0, -1), related]));
      }
    }
  }
}

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

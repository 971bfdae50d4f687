import type * as z from 'zod';
import { quote } from './result.ts';

// Messages for zod's issues in this project's words: the value received and
// what would be accepted. Used as the error map of the schema check; the field
// path and the position are added when problems are reported.

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

export function describeIssue(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return expectedGot(expectedText(issue.expected), issue.input);
    case 'invalid_union':
      return expectedGot(unionExpected(issue.errors), issue.input);
    case 'invalid_value':
      return `${describeValue(issue.input)} is not accepted; use ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'too_small':
      return issue.origin === 'array' ? `is an empty list; give at least ${String(issue.minimum)} item` : undefined;
    case 'unrecognized_keys':
      return `unknown keys ${issue.keys.join(', ')}`;
    default:
      return undefined;
  }
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

function expectedText(expected: string): string {
  return EXPECTED[expected] ?? expected;
}

function unionExpected(branches: readonly (readonly z.core.$ZodIssue[])[]): string {
  const expected = branches
    .flat()
    .flatMap((issue) => (issue.code === 'invalid_type' && issue.path.length === 0 ? [expectedText(issue.expected)] : []));
  if (expected.length <= 1) return expected[0] ?? 'another value';
  return `${expected.slice(0, -1).join(', ')} or ${expected.at(-1)}`;
}

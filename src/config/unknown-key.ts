import * as z from 'zod';
import type { PathSegment } from './problem.ts';
import { quote } from './result.ts';
import { ConfigSchema } from './schema.ts';

// An unknown key is usually a typo, so the message lists the keys accepted
// there and suggests the closest one.

const MAX_TYPO_DISTANCE = 2;

/** The message for `key`, unknown in the mapping at `path` of the config. */
export function unknownKeyMessage(key: string, path: readonly PathSegment[]): string {
  const accepted = acceptedKeysAt(path);
  const suggestion = closest(key, accepted);
  return (
    `unknown key ${quote(key)}` +
    (suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`) +
    (accepted.length > 0 ? `; accepted here: ${accepted.join(', ')}` : '')
  );
}

export function acceptedKeysAt(path: readonly PathSegment[]): string[] {
  let schema: z.ZodType | undefined = ConfigSchema;
  for (const segment of path) {
    schema = unwrap(schema);
    if (schema instanceof z.ZodObject) schema = (schema.shape as Record<string, z.ZodType>)[String(segment)];
    else if (schema instanceof z.ZodArray) schema = schema.element as z.ZodType;
    else return [];
  }
  schema = unwrap(schema);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  return schema instanceof z.ZodOptional ? unwrap(schema.unwrap() as z.ZodType) : schema;
}

function closest(key: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = MAX_TYPO_DISTANCE + 1;
  for (const candidate of candidates) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = row;
  }
  return previous[b.length]!;
}

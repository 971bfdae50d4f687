import * as z from 'zod';
import { closestMatch } from './closest-match.ts';
import type { PathSegment } from './problem.ts';
import { quote } from './result.ts';
import { ConfigSchema } from './schema.ts';

// An unknown key is usually a typo, so the message lists the keys accepted
// there and suggests the closest one.

/** The message for `key`, unknown in the mapping at `path` of the config. */
export function unknownKeyMessage(key: string, path: readonly PathSegment[]): string {
  const accepted = acceptedKeysAt(path);
  const suggestion = closestMatch(key, accepted);
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
    else if (schema instanceof z.ZodRecord) schema = schema.valueType as z.ZodType;
    else return [];
  }
  schema = unwrap(schema);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** Through `.optional()`, and to the mapping branch of a union such as a probe's string-or-mapping. */
function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  if (schema instanceof z.ZodOptional) return unwrap(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodUnion) return (schema.options as z.ZodType[]).find((option) => option instanceof z.ZodObject);
  return schema;
}

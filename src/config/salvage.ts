import * as z from 'zod';

// The parts of a value that pass their schema, so that the normalize steps run
// on everything that can be read: a typo in one key does not hide a bad
// duration in another, and an entry with problems keeps its name and role for
// the cross-entry rules. The problems themselves are reported from the schema
// check; what is dropped here has been reported there.

/** A value salvaged from `T`: mappings keep their valid fields, anything else is whole or absent. */
export type Salvaged<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends readonly unknown[]
    ? T
    : { readonly [Key in keyof T]?: Salvaged<T[Key]> };

/**
 * `value` parsed by `schema`; when it fails, a mapping keeps each field that
 * passes its own schema (recursively), a union tries its mapping branches,
 * and anything else (a list, a scalar) is dropped whole, so list indices in
 * later messages stay those of the file.
 */
export function salvage<Schema extends z.ZodType>(schema: Schema, value: unknown): Salvaged<z.output<Schema>> | undefined {
  return salvageAny(schema, value) as Salvaged<z.output<Schema>> | undefined;
}

function salvageAny(schema: z.ZodType, value: unknown): unknown {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  if (schema instanceof z.ZodOptional) return salvageAny(schema.unwrap() as z.ZodType, value);
  if (!isRecord(value)) return undefined;
  if (schema instanceof z.ZodObject) return salvageFields(schema.shape as Record<string, z.ZodType>, value);
  if (schema instanceof z.ZodRecord) return salvageEntries(schema.valueType as z.ZodType, value);
  if (schema instanceof z.ZodUnion) {
    const mapping = (schema.options as z.ZodType[]).find((option) => option instanceof z.ZodObject);
    return mapping === undefined ? undefined : salvageAny(mapping, value);
  }
  return undefined;
}

function salvageFields(shape: Record<string, z.ZodType>, value: Record<string, unknown>): Record<string, unknown> {
  const valid: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape)) {
    const salvaged = salvageAny(field, value[key]);
    if (salvaged !== undefined) valid[key] = salvaged;
  }
  return valid;
}

function salvageEntries(valueSchema: z.ZodType, value: Record<string, unknown>): Record<string, unknown> {
  const valid: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    const salvaged = salvageAny(valueSchema, entry);
    if (salvaged !== undefined) valid[key] = salvaged;
  }
  return valid;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

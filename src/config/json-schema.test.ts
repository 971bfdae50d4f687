import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createJsonSchema, JSON_SCHEMA_FILE, renderJsonSchema } from './json-schema.ts';

describe('the published JSON Schema', () => {
  it('is the one generated from the zod schema (run scripts/write-schema.ts after a change)', () => {
    expect(readFileSync(JSON_SCHEMA_FILE, 'utf8')).toBe(renderJsonSchema());
  });

  it('refuses unknown keys at every level, as the validator does', () => {
    const schema = createJsonSchema() as {
      additionalProperties: boolean;
      properties: { processes: { items: { additionalProperties: boolean; properties: { readiness: { additionalProperties: boolean } } } } };
    };
    const process = schema.properties.processes.items;
    expect([schema.additionalProperties, process.additionalProperties, process.properties.readiness.additionalProperties]).toEqual([
      false,
      false,
      false,
    ]);
  });
});

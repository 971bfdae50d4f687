import * as z from 'zod';
import { NO_ACCOUNTS } from './user.ts';
import { createConfigSchema } from './schema.ts';

// The published JSON Schema (schema/sidecar-init.schema.json) for editors, made
// from the zod schema that validates. scripts/write-schema.ts writes it and a
// test keeps the file in sync.

export function createJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(createConfigSchema(NO_ACCOUNTS), { io: 'input', target: 'draft-2020-12' });
}

/** The file's exact text: two-space JSON and a final newline. */
export function renderJsonSchema(): string {
  return `${JSON.stringify(createJsonSchema(), null, 2)}\n`;
}

/** Where the published copy lives in the repository. */
export const JSON_SCHEMA_FILE = new URL('../../schema/sidecar-init.schema.json', import.meta.url);

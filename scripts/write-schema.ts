// Writes schema/sidecar-init.schema.json from the zod schema that validates
// configs. Run after changing src/config/schema.ts:
//   npm run schema
// src/config/json-schema.test.ts fails while the file is out of date.
import { writeFileSync } from 'node:fs';
import { JSON_SCHEMA_FILE, renderJsonSchema } from '../src/config/json-schema.ts';

writeFileSync(JSON_SCHEMA_FILE, renderJsonSchema());
process.stderr.write(`wrote ${JSON_SCHEMA_FILE.pathname}\n`);

import { describeIssue } from './describe-issue.ts';
import type { Report } from './problem.ts';
import { reportSchemaIssues } from './report-schema-issues.ts';
import { isRecord, salvage, type Salvaged } from './salvage.ts';
import { ConfigSchema, ProcessSchema, type RawConfig, type RawProcess } from './schema.ts';

// Checks the file's value against the schema and reports every issue. The
// parts that are valid are still returned (salvage.ts), so the later checks
// run on them too.

export interface CheckedProcess {
  /** The whole entry passed the schema; only then can it become part of a plan. */
  readonly valid: boolean;
  /** Its valid parts. */
  readonly fields: Salvaged<RawProcess>;
}

export interface CheckedConfig extends Omit<Salvaged<RawConfig>, 'processes'> {
  readonly processes: readonly CheckedProcess[];
}

export function validateSchema(value: unknown, report: Report): CheckedConfig {
  const result = ConfigSchema.safeParse(value, { error: describeIssue });
  if (!result.success) reportSchemaIssues(result.error.issues, report);
  const { processes: _, ...fields } = salvage(ConfigSchema, value) ?? {};
  // Each process on its own, so that one broken entry keeps the others (and the indices).
  const processes = isRecord(value) && Array.isArray(value.processes) ? value.processes : [];
  return { ...fields, processes: processes.map(checkProcess) };
}

function checkProcess(item: unknown): CheckedProcess {
  return { valid: ProcessSchema.safeParse(item).success, fields: salvage(ProcessSchema, item) ?? {} };
}

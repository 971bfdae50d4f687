import * as z from 'zod';
import { describeIssue } from './describe-issue.ts';
import type { LogLevel } from './plan.ts';
import type { Report } from './problem.ts';
import { reportSchemaIssues } from './report-schema-issues.ts';
import {
  ConfigSchema,
  EnvValueSchema,
  ProcessSchema,
  ReadinessSchema,
  type RawProcess,
  type RawReadiness,
} from './schema.ts';

// Checks the file's value against the schema and reports every issue. The
// fields that are valid are still returned, one by one, so the later checks run
// on them too: a typo in one key does not hide a bad duration in another, and
// an entry with problems keeps its name and role for the cross-entry rules.

export interface CheckedProcess {
  /** The whole entry passed the schema; only then can it become part of a plan. */
  readonly valid: boolean;
  readonly fields: Partial<Omit<RawProcess, 'readiness'>>;
  /** The valid fields of `readiness:`, when it is a mapping. */
  readonly readiness: Partial<RawReadiness> | undefined;
}

export interface CheckedConfig {
  readonly grace: string | undefined;
  readonly logLevel: LogLevel | undefined;
  readonly processes: readonly CheckedProcess[];
}

export function validateSchema(value: unknown, report: Report): CheckedConfig {
  const result = ConfigSchema.safeParse(value, { error: describeIssue });
  if (!result.success) reportSchemaIssues(result.error.issues, report);
  const { grace, logLevel } = validFields(ConfigSchema.shape, value);
  const processes = isRecord(value) && Array.isArray(value.processes) ? value.processes : [];
  return { grace, logLevel, processes: processes.map(checkProcess) };
}

function checkProcess(item: unknown): CheckedProcess {
  const { readiness, env, ...fields } = validFields(ProcessSchema.shape, item);
  const { readiness: rawReadiness, env: rawEnv } = isRecord(item) ? item : {};
  return {
    valid: ProcessSchema.safeParse(item).success,
    fields: { ...fields, env: env ?? (isRecord(rawEnv) ? validEntries(EnvValueSchema, rawEnv) : undefined) },
    readiness: readiness ?? (isRecord(rawReadiness) ? validFields(ReadinessSchema.shape, rawReadiness) : undefined),
  };
}

/** The fields of `value` that pass their own schema. */
function validFields<Shape extends Record<string, z.ZodType>>(
  shape: Shape,
  value: unknown,
): { [Key in keyof Shape]?: z.output<Shape[Key]> } {
  const fields = isRecord(value) ? value : {};
  const valid: { [Key in keyof Shape]?: z.output<Shape[Key]> } = {};
  for (const key of Object.keys(shape) as (keyof Shape & string)[]) {
    const result = shape[key]!.safeParse(fields[key]);
    if (result.success && result.data !== undefined) valid[key] = result.data as z.output<Shape[typeof key]>;
  }
  return valid;
}

/** The entries of a mapping whose values pass `schema`. */
function validEntries<Value>(schema: z.ZodType<Value>, value: Record<string, unknown>): Record<string, Value> {
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, entry]) => {
      const result = schema.safeParse(entry);
      return result.success ? [[key, result.data]] : [];
    }),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

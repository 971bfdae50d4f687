import * as z from 'zod';
import { duration } from './duration.ts';
import { DrainSchema } from './hook.ts';
import { LOG_LEVELS } from './literals.ts';
import { DEFAULT_GRACE_MS, DEFAULT_LOG_LEVEL, type DrainSpec, type LogLevel } from './plan.ts';
import { type Entry, ProcessSchema, readFileEntry } from './process.ts';
import type { Report } from './problem.ts';
import { describeIssue, isRecord, mapping, reportIssues } from './schema-fields.ts';
import { RewriteSchema, type SignalRewrites, toRewrites } from './signals.ts';

// The config file: its shape and every value, checked in one pass that turns
// what the user wrote into plan values. The JSON Schema for editors is
// generated from the same definitions (json-schema.ts).

export const ConfigSchema = mapping({
  grace: duration('The whole budget from the stop signal (or the app exit) to the supervisor exit.', DEFAULT_GRACE_MS).optional(),
  logLevel: z.enum(LOG_LEVELS).optional().meta({ default: DEFAULT_LOG_LEVEL }),
  drain: DrainSchema.optional().meta({
    description: 'Runs first on termination, before any stop signal: a delay (5s) or a hook ({exec} or {http}).',
  }),
  rewrite: RewriteSchema,
  singleChild: z.boolean().optional().meta({
    description: 'Signal only each direct child, not its process group, unless a process sets signalGroup.',
    default: false,
  }),
  processes: z
    .array(ProcessSchema)
    .optional()
    .meta({
      description:
        'Init steps and sidecars start in this order, each after the one before it is done or started ' +
        '(unless a process has after); the app starts last.',
    }),
}).meta({ title: 'sidecar-init configuration' });

/** What the config file contributes; undefined fields were not given. */
export interface FileConfig {
  readonly graceMs: number | undefined;
  readonly logLevel: LogLevel | undefined;
  readonly drain: DrainSpec | undefined;
  readonly rewrites: SignalRewrites;
  readonly singleChild: boolean;
  /** Each with its draft when the whole file passed. */
  readonly entries: readonly Entry[];
}

export const EMPTY_FILE_CONFIG: FileConfig = {
  graceMs: undefined,
  logLevel: undefined,
  drain: undefined,
  rewrites: {},
  singleChild: false,
  entries: [],
};

/** The file's value checked, every problem reported; its entries keep what is readable for the rules across entries. */
export function checkFile(value: unknown, report: Report): FileConfig {
  const result = ConfigSchema.safeParse(value, { error: describeIssue });
  if (!result.success) reportIssues(result.error.issues, report);
  const processes = isRecord(value) && Array.isArray(value.processes) ? value.processes : [];
  const entries = processes.map((raw, index) => readFileEntry(raw, index, report));
  if (!result.success) return { ...EMPTY_FILE_CONFIG, entries };
  const { data } = result;
  return {
    graceMs: data.grace,
    logLevel: data.logLevel,
    drain: data.drain,
    rewrites: toRewrites(data.rewrite),
    singleChild: data.singleChild ?? false,
    entries: entries.map((entry, index) => ({ ...entry, draft: data.processes?.[index] })),
  };
}

import * as z from 'zod';
import { duration } from './duration.ts';
import { DrainSchema } from './hook.ts';
import { LOG_FORMATS, LOG_LEVELS, OUTPUT_MODES } from './literals.ts';
import {
  DEFAULT_GRACE_MS,
  DEFAULT_LOG_LEVEL,
  DEFAULT_OUTPUT_MODE,
  type DrainSpec,
  type LogFormat,
  type LogLevel,
  type OutputMode,
  type StatusAddress,
  type TerminationLog,
} from '../plan/plan.ts';
import { type Entry, ProcessSchema, readFileEntry } from './process.ts';
import type { Report } from './problem.ts';
import { describeIssue, isRecord, mapping, parsedWith, reportIssues } from './schema-fields.ts';
import { RewriteSchema, type SignalRewrites, toRewrites } from './signals.ts';
import { parseControlPath } from './control-path.ts';
import { parseStatusAddress } from './status-address.ts';
import { DEFAULT_TERMINATION_LOG, parseTerminationLog } from './termination-log.ts';

// The config file: its shape and every value, checked in one pass that turns
// what the user wrote into plan values. The JSON Schema for editors is
// generated from the same definitions (json-schema.ts).

export const ConfigSchema = mapping({
  grace: duration('The whole budget from the stop signal (or the app exit) to the supervisor exit.', DEFAULT_GRACE_MS).optional(),
  logLevel: z.enum(LOG_LEVELS).optional().meta({ default: DEFAULT_LOG_LEVEL }),
  logFormat: z.enum(LOG_FORMATS).optional().meta({
    description: "sidecar-init's own log: json lines, or text for people (default: text when stderr is a terminal, else json).",
  }),
  statusAddr: parsedWith(z.string(), parseStatusAddress)
    .optional()
    .meta({
      description: 'HOST:PORT of the status server (/healthz, /readyz, /status, /metrics); no server when left out.',
      examples: ['0.0.0.0:9901', '127.0.0.1:9901', ':9901'],
    }),
  terminationLog: parsedWith(z.string(), parseTerminationLog)
    .optional()
    .meta({
      description:
        'Where the one-line reason for the exit is written (Kubernetes shows it as the termination message), or none; ' +
        `by default ${DEFAULT_TERMINATION_LOG}, when it is there.`,
      examples: [DEFAULT_TERMINATION_LOG, '/run/sidecar-init/termination', 'none'],
    }),
  control: parsedWith(z.string(), parseControlPath)
    .optional()
    .meta({
      description:
        "Path of the control socket for `sidecar-init ctl` (status, restart, stop, start, signal); mode 0600, for sidecar-init's own user and root. No socket when left out.",
      examples: ['/run/sidecar-init.sock'],
    }),
  output: z.enum(OUTPUT_MODES).optional().meta({
    description: 'How the output of processes without their own output setting is written: inherit, prefix (NAME | LINE) or json.',
    default: DEFAULT_OUTPUT_MODE,
  }),
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
  readonly logFormat: LogFormat | undefined;
  readonly statusAddr: StatusAddress | undefined;
  readonly terminationLog: TerminationLog | undefined;
  readonly controlPath: string | undefined;
  readonly output: OutputMode | undefined;
  readonly drain: DrainSpec | undefined;
  readonly rewrites: SignalRewrites;
  readonly singleChild: boolean;
  /** Each with its draft when the whole file passed. */
  readonly entries: readonly Entry[];
}

export const EMPTY_FILE_CONFIG: FileConfig = {
  graceMs: undefined,
  logLevel: undefined,
  logFormat: undefined,
  statusAddr: undefined,
  terminationLog: undefined,
  controlPath: undefined,
  output: undefined,
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
    logFormat: data.logFormat,
    statusAddr: data.statusAddr,
    terminationLog: data.terminationLog,
    controlPath: data.control,
    output: data.output,
    drain: data.drain,
    rewrites: toRewrites(data.rewrite),
    singleChild: data.singleChild ?? false,
    entries: entries.map((entry, index) => ({ ...entry, draft: data.processes?.[index] })),
  };
}

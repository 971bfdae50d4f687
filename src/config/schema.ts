import { isRecord } from '../support/is-record.ts';
import * as z from 'zod';
import type { Accounts } from './accounts.ts';
import { AnnounceSchema, DEFAULT_UNTIL_STATE, UntilSchema } from './announce.ts';
import { duration } from './duration.ts';
import { DrainSchema } from './hook.ts';
import { LOG_FORMATS, LOG_LEVELS, OUTPUT_MODES } from './literals.ts';
import type { FileOption } from './global-options.ts';
import { DEFAULT_GRACE_MS, DEFAULT_LOG_LEVEL, DEFAULT_OUTPUT_MODE } from '../plan/plan.ts';
import { createAnyRoleSchema, createProcessSchema, type Entry, readFileEntry } from './process.ts';
import { fileOrigin, type Report } from './problem.ts';
import { describeIssue, mapping, oneOf, parsedWith, reportIssues } from './schema-fields.ts';
import { RewriteSchema } from './signals.ts';
import { parseControlPath } from './control-path.ts';
import { parseStatusAddress } from './status-address.ts';
import { DEFAULT_TERMINATION_LOG, parseTerminationLog } from './termination-log.ts';
import { ID_RANGE, wholeNumber } from './whole-number.ts';

// The config file: its shape and every value, checked in one pass that turns
// what the user wrote into plan values. The JSON Schema for editors is
// generated from the same definitions (json-schema.ts).

/**
 * The options that are not about one named process: a field each, used for
 * the file's top-level key and, through flags.ts, for its flag and variable
 * (global-options.ts), so a value means the same whichever way it came in.
 */
export const GLOBAL_FIELDS = {
  grace: duration('The whole budget from the stop signal (or the app exit) to the supervisor exit.', DEFAULT_GRACE_MS).optional(),
  logLevel: oneOf('a log level', LOG_LEVELS, (words) => words.join(', '))
    .optional()
    .meta({ default: DEFAULT_LOG_LEVEL }),
  logFormat: oneOf('a log format', LOG_FORMATS).optional().meta({
    description: "sidecar-init's own log: json lines, or text for people (default: text when stderr is a terminal, else json).",
  }),
  statusAddr: parsedWith(z.string(), parseStatusAddress)
    .optional()
    .meta({
      description: 'HOST:PORT of the status server (/healthz, /readyz, /status, /metrics); no server when left out.',
      examples: [':9797', '127.0.0.1:9797', '[::1]:9797'],
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
        "Path of the control socket for `sidecar-init ctl` (status, restart, stop, start, signal); mode 0600, for sidecar-init's own user and root; none for no socket. Left out: /tmp/sidecar-init-UID/control.sock, where ctl looks without --control.",
      examples: ['/run/sidecar-init.sock', 'none'],
    }),
  announce: AnnounceSchema.optional().meta({
    description:
      'A file on a volume shared with other containers where this run keeps its state (starting, ready, stopping, exited), ' +
      'written atomically; relative to the directory sidecar-init starts in.',
    examples: ['/handoff/app'],
  }),
  until: UntilSchema.optional().meta({
    description:
      `Run until another container's announce file says STATE (default ${DEFAULT_UNTIL_STATE}) or a later one, ` +
      'then stop as if the app had exited 0: FILE, FILE=STATE or {file, state}.',
  }),
  announcerUid: wholeNumber(
    "The uid that writes the other containers' announce files this run reads (--until, announced: FILE): " +
      'what a file says counts only when that uid owns it and neither group nor others may write it ' +
      "(default: sidecar-init's own uid).",
    ID_RANGE,
  ).optional(),
  output: oneOf('an output mode', OUTPUT_MODES).optional().meta({
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
} satisfies Readonly<Record<FileOption, z.ZodType>>;

/** The whole file; user and group names resolve through `accounts`. */
export function createConfigSchema(accounts: Accounts) {
  return mapping({
    ...GLOBAL_FIELDS,
    processes: z
      .array(createProcessSchema(accounts))
      .optional()
      .meta({
        description:
          'Init steps and sidecars start in this order, each after the one before it is done or started ' +
          '(unless a process has after); the app starts last.',
      }),
  }).meta({ title: 'sidecar-init configuration' });
}

/** The options' plan values; a missing key was not given. */
export type GlobalValues = { -readonly [Option in FileOption]?: z.output<(typeof GLOBAL_FIELDS)[Option]> };

/** What the config file contributes. */
export interface FileConfig {
  readonly globals: GlobalValues;
  /** Each with its draft when the whole file passed. */
  readonly entries: readonly Entry[];
}

export const EMPTY_FILE_CONFIG: FileConfig = { globals: {}, entries: [] };

/** The file's value checked, every problem reported; its entries keep what is readable for the rules across entries. */
export function checkFile(value: unknown, accounts: Accounts, report: Report): FileConfig {
  const result = createConfigSchema(accounts).safeParse(value, { error: describeIssue });
  if (!result.success) reportIssues(result.error.issues, report);
  const processes = isRecord(value) && Array.isArray(value.processes) ? value.processes : [];
  const entries = processes.map((raw, index) => readFileEntry(raw, index, report));
  checkEntriesWithoutRole(processes, entries, accounts, report);
  if (!result.success) return { ...EMPTY_FILE_CONFIG, entries };
  const { processes: drafts, ...globals } = result.data;
  return { globals, entries: entries.map((entry, index) => ({ ...entry, draft: drafts?.[index] })) };
}

/**
 * An entry whose role is missing or unknown matches no role's mapping, so the
 * schema reports only its role: its other fields are checked against every
 * role's, so that one run still finds all of its problems.
 */
function checkEntriesWithoutRole(processes: readonly unknown[], entries: readonly Entry[], accounts: Accounts, report: Report): void {
  const anyRole = createAnyRoleSchema(accounts);
  entries.forEach((entry, index) => {
    if (entry.role !== undefined || !isRecord(processes[index])) return;
    const result = anyRole.safeParse(processes[index], { error: describeIssue });
    const issues = result.success ? [] : result.error.issues.filter((issue) => issue.path[0] !== 'role');
    reportIssues(issues, report, (path) => fileOrigin('processes', index, ...path));
  });
}

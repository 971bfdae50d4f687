import { isRecord } from '../support/is-record.ts';
import * as z from 'zod';
import type { Accounts } from './user.ts';
import { FILE_OPTION_NAMES, FILE_OPTIONS, type FileOption, type FileOptionRow, type GlobalValues } from './global-options.ts';
import { createAnyRoleSchema, createProcessSchema, type Entry, readFileEntry } from './process.ts';
import { fileOrigin, type Report } from './config-error.ts';
import { describeIssue, mapping, reportIssues } from './schema-fields.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

// The config file: its shape and every value, checked in one pass that turns
// what the user wrote into plan values. The JSON Schema for editors is
// generated from the same definitions (json-schema.ts).

/** The file's top-level keys but processes: each option's field (global-options.ts). */
const GLOBAL_FIELDS = builtOnFirstUse(
  () =>
    Object.fromEntries(FILE_OPTION_NAMES.map((option) => [option, FILE_OPTIONS[option].field])) as {
      readonly [Option in FileOption]: FileOptionRow<Option>['field'];
    },
);

/** The whole file; user and group names resolve through `accounts`. */
export function createConfigSchema(accounts: Accounts) {
  return mapping({
    ...GLOBAL_FIELDS(),
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

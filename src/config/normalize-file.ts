import type { Entry } from './entry.ts';
import { normalizeDuration } from './normalize-duration.ts';
import { normalizeFileProcess } from './normalize-file-process.ts';
import type { LogLevel } from './plan.ts';
import { fileOrigin, type Report } from './problem.ts';
import type { CheckedConfig } from './validate-schema.ts';

/** What the config file contributes; undefined fields were not given (or had problems, already reported). */
export interface FileConfig {
  readonly graceMs: number | undefined;
  readonly logLevel: LogLevel | undefined;
  readonly entries: readonly Entry[];
}

export const EMPTY_FILE_CONFIG: FileConfig = { graceMs: undefined, logLevel: undefined, entries: [] };

export function normalizeFile(checked: CheckedConfig, report: Report): FileConfig {
  return {
    graceMs: normalizeDuration(checked.grace, undefined, fileOrigin('grace'), report),
    logLevel: checked.logLevel,
    entries: checked.processes.map((process, index) => normalizeFileProcess(process, index, report)),
  };
}

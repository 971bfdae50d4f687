import type { Entry } from './entry.ts';
import { normalizeFileDrain } from './normalize-drain.ts';
import { normalizeDuration } from './normalize-duration.ts';
import { normalizeFileProcess } from './normalize-file-process.ts';
import { normalizeFileRewrites, type SignalRewrites } from './normalize-rewrites.ts';
import type { DrainSpec, LogLevel } from './plan.ts';
import { fileOrigin, type Report } from './problem.ts';
import type { CheckedConfig } from './validate-schema.ts';

/** What the config file contributes; undefined fields were not given (or had problems, already reported). */
export interface FileConfig {
  readonly graceMs: number | undefined;
  readonly logLevel: LogLevel | undefined;
  readonly drain: DrainSpec | undefined;
  readonly rewrites: SignalRewrites;
  readonly singleChild: boolean;
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

export function normalizeFile(checked: CheckedConfig, report: Report): FileConfig {
  return {
    graceMs: normalizeDuration(checked.grace, undefined, fileOrigin('grace'), report),
    logLevel: checked.logLevel,
    drain: checked.drain === undefined ? undefined : normalizeFileDrain(checked.drain, fileOrigin('drain'), report),
    rewrites: normalizeFileRewrites(checked.rewrite ?? {}, fileOrigin('rewrite'), report),
    singleChild: checked.singleChild ?? false,
    entries: checked.processes.map((process, index) => normalizeFileProcess(process, index, report)),
  };
}

import { buildPlan } from './build-plan.ts';
import { checkApps } from './check-apps.ts';
import { checkNames } from './check-names.ts';
import { checkReadyFlags } from './check-ready-flags.ts';
import type { CliInput } from './cli-input.ts';
import { createConfigError } from './config-error.ts';
import { mergeEntries } from './merge-entries.ts';
import { EMPTY_FILE_CONFIG, normalizeFile } from './normalize-file.ts';
import { normalizeFlags } from './normalize-flags.ts';
import { DEFAULT_GRACE_MS, DEFAULT_LOG_LEVEL, type Plan } from './plan.ts';
import { createProblemList, fileOrigin } from './problem.ts';
import { readConfigFile, readUtf8File, type ReadFile } from './read-config-file.ts';
import { validateSchema } from './validate-schema.ts';

export interface LoadPlanInput {
  readonly cli: CliInput;
  /** From -c/--config or SIDECAR_INIT_CONFIG. */
  readonly configFile?: string | undefined;
  /** Injected by tests; reads UTF-8 from disk by default. */
  readonly readFile?: ReadFile | undefined;
}

/**
 * The plan from the file and the flags, or a ConfigError listing every
 * problem. Pure apart from reading the file: parse → validate the schema →
 * normalize → check the rules → build the plan.
 */
export function loadPlan(input: LoadPlanInput): Plan {
  const { problems, report } = createProblemList();
  const { configFile } = input;
  const parsed = configFile === undefined ? undefined : readConfigFile(configFile, input.readFile ?? readUtf8File, report);
  const file = parsed === undefined ? EMPTY_FILE_CONFIG : normalizeFile(validateSchema(parsed.value, report), report);
  const flags = normalizeFlags(input.cli, report);
  const { entries, replaced } = mergeEntries(file.entries, flags.entries, flags.app);
  // A file that cannot be read or parsed hides its names and roles; rules about them would only guess.
  if (configFile === undefined || parsed !== undefined) {
    checkNames(entries, replaced, report);
    checkApps(file.entries, entries, configFile === undefined ? { kind: 'command-line' } : fileOrigin('processes'), report);
    checkReadyFlags(flags.ready, entries, report);
  }
  if (problems.length > 0) throw createConfigError(problems, { file: configFile, locate: parsed?.locate });
  // Without problems every entry has its draft and every --ready its probe.
  return buildPlan({
    processes: entries.flatMap((entry) => (entry.draft === undefined ? [] : [entry.draft])),
    readyProbes: new Map(flags.ready.flatMap((flag) => (flag.probe === undefined ? [] : [[flag.name, flag.probe] as const]))),
    graceMs: flags.graceMs ?? file.graceMs ?? DEFAULT_GRACE_MS,
    logLevel: flags.logLevel ?? file.logLevel ?? DEFAULT_LOG_LEVEL,
  });
}

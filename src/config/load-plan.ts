import { checkAfter } from './after.ts';
import { buildPlan } from './build-plan.ts';
import type { CliInput } from './cli-input.ts';
import { readBoundedFile, readConfigFile, type ReadFile } from './config-file.ts';
import { createConfigError } from './config-error.ts';
import { checkApps, checkNames, mergeEntries } from './entries.ts';
import { applyFlagOverrides, checkFlagTargets } from './flag-targets.ts';
import { parseFlags } from './flags.ts';
import { DEFAULT_GRACE_MS, DEFAULT_LOG_LEVEL, type Plan } from '../plan/plan.ts';
import { createProblemList, fileOrigin } from './problem.ts';
import { checkFile, EMPTY_FILE_CONFIG } from './schema.ts';
import { DEFAULT_TERMINATION_LOG_TARGET } from './termination-log.ts';
import { checkPrivileges, type Identity } from './user.ts';

export interface LoadPlanInput {
  readonly cli: CliInput;
  /** From -c/--config or SIDECAR_INIT_CONFIG. */
  readonly configFile?: string | undefined;
  /** Injected by tests; reads a regular file of at most 1 MiB from disk by default. */
  readonly readFile?: ReadFile | undefined;
  /**
   * sidecar-init's own uid and gid, for a run: unless it is root, a process may
   * not ask for another user or group. `validate` leaves it out: it may run as
   * anyone, anywhere; it still resolves names through this machine's files.
   */
  readonly identity?: Identity | undefined;
}

/**
 * The plan from the file and the flags, or a ConfigError listing every
 * problem. Pure apart from reading the file: parse → check the file and the
 * flags → check the rules across processes → build the plan.
 */
export function loadPlan(input: LoadPlanInput): Plan {
  const { problems, report } = createProblemList();
  const { configFile } = input;
  const parsed = configFile === undefined ? undefined : readConfigFile(configFile, input.readFile ?? readBoundedFile, report);
  const file = parsed === undefined ? EMPTY_FILE_CONFIG : checkFile(parsed.value, report);
  const flags = parseFlags(input.cli, report);
  const { entries, replaced } = mergeEntries(file.entries, flags.entries, flags.app);
  // A file that cannot be read or parsed hides its names and roles; rules about them would only guess.
  if (configFile === undefined || parsed !== undefined) {
    checkNames(entries, replaced, report);
    checkApps(file.entries, entries, configFile === undefined ? { kind: 'command-line' } : fileOrigin('processes'), report);
    checkAfter(entries, replaced, report);
    checkFlagTargets(flags, entries, report);
    if (input.identity !== undefined) checkPrivileges(entries, flags, input.identity, report);
  }
  if (problems.length > 0) throw createConfigError(problems, { file: configFile, locate: parsed?.locate });
  // Without problems every entry has its draft and every flag its value.
  return buildPlan({
    processes: entries.flatMap((entry) => (entry.draft === undefined ? [] : [applyFlagOverrides(entry.draft, flags)])),
    graceMs: flags.graceMs ?? file.graceMs ?? DEFAULT_GRACE_MS,
    logLevel: flags.logLevel ?? file.logLevel ?? DEFAULT_LOG_LEVEL,
    logFormat: flags.logFormat ?? file.logFormat,
    statusAddr: flags.statusAddr ?? file.statusAddr,
    terminationLog: flags.terminationLog ?? file.terminationLog ?? DEFAULT_TERMINATION_LOG_TARGET,
    controlPath: flags.controlPath ?? file.controlPath,
    output: flags.output ?? file.output,
    drain: flags.drain ?? file.drain,
    signalRewrites: { ...file.rewrites, ...flags.rewrites },
    singleChild: flags.singleChild ?? file.singleChild,
  });
}

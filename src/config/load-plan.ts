import { applyFlagOverrides } from './apply-flag-overrides.ts';
import { buildPlan } from './build-plan.ts';
import { checkAfter } from './check-after.ts';
import { checkApps } from './check-apps.ts';
import { checkFlagTargets } from './check-flag-targets.ts';
import { checkNames } from './check-names.ts';
import type { CliInput } from './cli-input.ts';
import { createConfigError } from './config-error.ts';
import { mergeEntries } from './merge-entries.ts';
import { EMPTY_FILE_CONFIG, normalizeFile } from './normalize-file.ts';
import { normalizeFlags } from './normalize-flags.ts';
import { checkPolicyForRole } from './normalize-restart.ts';
import { DEFAULT_GRACE_MS, DEFAULT_LOG_LEVEL, type Plan } from './plan.ts';
import { createProblemList, fileOrigin } from './problem.ts';
import { readConfigFile, readUtf8File, type ReadFile } from './read-config-file.ts';
import type { TargetFlag } from './target-flag.ts';
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
    checkAfter(entries, replaced, report);
    checkFlagTargets(flags.ready, entries, { roles: ['sidecar'] }, report);
    checkFlagTargets(flags.restart, entries, { checkValue: (policy, target) => checkPolicyForRole(policy, target.role) }, report);
    checkFlagTargets(flags.stopSignal, entries, {}, report);
  }
  if (problems.length > 0) throw createConfigError(problems, { file: configFile, locate: parsed?.locate });
  // Without problems every entry has its draft and every flag its value.
  const overrides = {
    readyProbes: byName(flags.ready),
    restartPolicies: byName(flags.restart),
    stopSignals: byName(flags.stopSignal),
    successCodes: flags.successCodes,
  };
  return buildPlan({
    processes: entries.flatMap((entry) => (entry.draft === undefined ? [] : [applyFlagOverrides(entry.draft, overrides)])),
    graceMs: flags.graceMs ?? file.graceMs ?? DEFAULT_GRACE_MS,
    logLevel: flags.logLevel ?? file.logLevel ?? DEFAULT_LOG_LEVEL,
    drain: flags.drain ?? file.drain,
    signalRewrites: { ...file.rewrites, ...flags.rewrites },
    singleChild: flags.singleChild || file.singleChild,
  });
}

function byName<Value>(flags: readonly TargetFlag<Value>[]): Map<string, Value> {
  return new Map(flags.flatMap((flag) => (flag.value === undefined ? [] : [[flag.name, flag.value] as const])));
}

import { type Accounts, readAccountFiles } from './accounts.ts';
import { buildPlan } from './build-plan.ts';
import { mergeGlobals } from './global-options.ts';
import type { CliInput } from './cli-input.ts';
import { readBoundedFile, readConfigFile, type ReadFile } from './config-file.ts';
import { createConfigError } from './config-error.ts';
import { mergeEntries } from './entries.ts';
import { checkEntryRules, type Identity } from './entries.ts';
import { createFlagOverrides } from './flag-targets.ts';
import { parseFlags } from './flags.ts';
import type { Plan } from '../plan/plan.ts';
import { createProblemList, fileOrigin, type Origin } from './problem.ts';
import { checkFile, EMPTY_FILE_CONFIG } from './schema.ts';

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
  /** The image's users and groups, for names in user and group; this machine's /etc/passwd and /etc/group by default. */
  readonly accounts?: Accounts | undefined;
}

/**
 * The plan from the file and the flags, or a ConfigError listing every
 * problem. Pure apart from its two inputs that read files (the config, the
 * accounts), both replaceable: parse → check the file and the flags → check
 * the rules across processes → build the plan.
 */
export function loadPlan(input: LoadPlanInput): Plan {
  const { problems, report } = createProblemList();
  const { configFile } = input;
  const parsed = configFile === undefined ? undefined : readConfigFile(configFile, input.readFile ?? readBoundedFile, report);
  const accounts = input.accounts ?? readAccountFiles();
  const file = parsed === undefined ? EMPTY_FILE_CONFIG : checkFile(parsed.value, accounts, report);
  const flags = parseFlags(input.cli, accounts, report);
  const { entries, replaced } = mergeEntries(file.entries, flags.entries, flags.app);
  // A file that cannot be read or parsed hides its names and roles; rules about them would only guess.
  if (configFile === undefined || parsed !== undefined) {
    const noAppOrigin: Origin = configFile === undefined ? { kind: 'command-line' } : fileOrigin('processes');
    checkEntryRules({ entries, replaced, fileEntries: file.entries, flags, noAppOrigin, identity: input.identity }, report);
  }
  if (problems.length > 0) throw createConfigError(problems, { file: configFile, locate: parsed?.locate });
  // Without problems every entry has its draft and every flag its value.
  const override = createFlagOverrides(flags);
  return buildPlan({
    processes: entries.flatMap((entry) => (entry.draft === undefined ? [] : [override(entry.draft)])),
    globals: mergeGlobals(file.globals, flags.globals),
  });
}

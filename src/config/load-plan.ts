import { type Accounts, readAccountFiles } from './user.ts';
import { mergeGlobals, createPlanOptions, type GlobalValues, optionFlag } from './global-options.ts';
import { type CliInput, parseFlags } from './flags.ts';
import { readBoundedFile, readConfigFile, type ReadFile } from './config-file.ts';
import { type ConfigError, createConfigError, createProblemList, fileOrigin, type Origin } from './config-error.ts';
import { mergeEntries, checkEntryRules, type Identity } from './entries.ts';
import { createFlagOverrides } from './target-flags.ts';
import type { Plan, ProcessSpec } from '../plan/plan.ts';
import { checkFile, EMPTY_FILE_CONFIG } from './schema.ts';
import type { ProcessDraft } from './process.ts';
import { checkPrograms, type ProgramCheck } from './programs.ts';

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
  /**
   * `validate`: each command a run would start, checked here as the run will
   * check it. Without `warn`, a program that cannot be started is a problem
   * like any other (`validate --programs`); with it, the config is valid and
   * `warn` is told (the config may be meant for another image).
   */
  readonly programs?: { readonly check: ProgramCheck; readonly warn?: ((found: ConfigError) => void) | undefined } | undefined;
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
  const context = { file: configFile, locate: parsed?.locate };
  if (problems.length > 0) throw createConfigError(problems, context);
  // Without problems every entry has its draft and every flag its value.
  const override = createFlagOverrides(flags);
  const processes = entries.flatMap((entry) =>
    entry.draft === undefined ? [] : [{ entry, written: entry.draft, draft: override(entry.draft) }],
  );
  const globals = mergeGlobals(file.globals, flags.globals);
  if (input.programs !== undefined) {
    const drain = { spec: globals.drain, origin: drainOrigin(input.cli, flags.globals.drain !== undefined) };
    checkPrograms({ processes, targets: flags.targets, drain }, input.programs.check, report);
    if (problems.length > 0) {
      const found = createConfigError(problems, context);
      if (input.programs.warn === undefined) throw found;
      input.programs.warn(found);
    }
  }
  return buildPlan({ processes: processes.map(({ draft }) => draft), globals });
}

/** Where the drain was given: its flag or variable over the file's key. */
function drainOrigin(cli: CliInput, fromFlags: boolean): Origin {
  if (!fromFlags) return fileOrigin('drain');
  return { kind: 'flag', flag: cli.sources.drain ?? optionFlag('drain'), value: String(cli.options.drain) };
}

export interface PlanParts {
  /** In list order, flags applied; exactly one is the app. */
  readonly processes: readonly ProcessDraft[];
  /** The options not about one named process, flags and variables over the file (mergeGlobals). */
  readonly globals: GlobalValues;
}

/**
 * The plan, from parts that have passed every check. Without `after:`
 * anywhere each entry waits for the one listed before it, and the app for all
 * of them: Kubernetes' initContainers order, as a graph. Once any process has
 * `after:`, every entry waits for exactly its own list (none when it has
 * none), so independent entries start together; the app still waits for
 * everything unless it has a list of its own.
 */
export function buildPlan(parts: PlanParts): Plan {
  const steps = parts.processes.filter((draft) => draft.role !== 'app');
  const apps = parts.processes.filter((draft) => draft.role === 'app');
  const graph = parts.processes.some((draft) => draft.after !== undefined);
  const options = createPlanOptions(parts.globals);
  const spec = (draft: ProcessDraft, after: readonly string[]): ProcessSpec => ({
    ...draft,
    signalTarget: draft.signalTarget ?? (options.singleChild ? 'process' : 'group'),
    after,
    output: draft.output ?? options.output,
  });
  const processes = [
    ...steps.map((draft, index) => spec(draft, graph ? (draft.after ?? []) : defaultChain(steps, index))),
    ...apps.map((draft) => spec(draft, draft.after ?? steps.map((step) => step.name))),
  ];
  return { ...options, processes };
}

function defaultChain(steps: readonly ProcessDraft[], index: number): string[] {
  return index === 0 ? [] : [steps[index - 1]!.name];
}

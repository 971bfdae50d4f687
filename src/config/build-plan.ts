import { type ControlSocket, DEFAULT_GRACE_MS, DEFAULT_LOG_LEVEL, DEFAULT_OUTPUT_MODE, type Plan, type ProcessSpec } from '../plan/plan.ts';
import { NO_CONTROL } from './control-path.ts';
import type { ProcessDraft } from './process.ts';
import type { GlobalValues } from './schema.ts';
import { DEFAULT_TERMINATION_LOG_TARGET } from './termination-log.ts';

export interface PlanParts {
  /** In list order, flags applied; exactly one is the app. */
  readonly processes: readonly ProcessDraft[];
  /** The options not about one named process, flags and variables over the file (mergeGlobals). */
  readonly globals: GlobalValues;
}

/** Flags (and variables) over the file, option by option; --rewrite over the file's rewrite signal by signal. */
export function mergeGlobals(file: GlobalValues, flags: GlobalValues): GlobalValues {
  return { ...file, ...flags, rewrite: { ...file.rewrite, ...flags.rewrite } };
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
  const { globals } = parts;
  const defaultTarget = globals.singleChild === true ? 'process' : 'group';
  const spec = (draft: ProcessDraft, after: readonly string[]): ProcessSpec => ({
    ...draft,
    signalTarget: draft.signalTarget ?? defaultTarget,
    after,
    output: draft.output ?? globals.output ?? DEFAULT_OUTPUT_MODE,
  });
  const processes = [
    ...steps.map((draft, index) => spec(draft, graph ? (draft.after ?? []) : defaultChain(steps, index))),
    ...apps.map((draft) => spec(draft, draft.after ?? steps.map((step) => step.name))),
  ];
  return {
    graceMs: globals.grace ?? DEFAULT_GRACE_MS,
    logLevel: globals.logLevel ?? DEFAULT_LOG_LEVEL,
    logFormat: globals.logFormat,
    statusAddr: globals.statusAddr,
    terminationLog: globals.terminationLog ?? DEFAULT_TERMINATION_LOG_TARGET,
    control: controlSocketOf(globals.control),
    processes,
    drain: globals.drain,
    signalRewrites: globals.rewrite ?? {},
    announce: globals.announce,
    until: globals.until,
    announcerUid: globals.announcerUid,
  };
}

function defaultChain(steps: readonly ProcessDraft[], index: number): string[] {
  return index === 0 ? [] : [steps[index - 1]!.name];
}

/** --control PATH, none, or left out: the default socket (its path depends on the uid, known only when it runs). */
function controlSocketOf(control: string | undefined): ControlSocket {
  if (control === undefined) return { kind: 'default' };
  return control === NO_CONTROL ? { kind: 'none' } : { kind: 'path', path: control };
}

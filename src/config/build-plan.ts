import type { Plan, ProcessSpec } from '../plan/plan.ts';
import { createPlanOptions, type GlobalValues } from './global-options.ts';
import type { ProcessDraft } from './process.ts';

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

import type { ProcessDraft } from './process.ts';
import {
  DEFAULT_OUTPUT_MODE,
  type DrainSpec,
  type LogFormat,
  type LogLevel,
  type OutputMode,
  type Plan,
  type ProcessSpec,
  type StatusAddress,
  type TerminationLog,
} from '../plan/plan.ts';

export interface PlanParts {
  /** In list order, flags applied; exactly one is the app. */
  readonly processes: readonly ProcessDraft[];
  readonly graceMs: number;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat | undefined;
  readonly statusAddr: StatusAddress | undefined;
  readonly terminationLog: TerminationLog;
  readonly controlPath: string | undefined;
  /** For processes without their own output; undefined: inherit. */
  readonly output: OutputMode | undefined;
  readonly drain: DrainSpec | undefined;
  readonly signalRewrites: Plan['signalRewrites'];
  /** Signal only the direct child of each process that does not set signalGroup. */
  readonly singleChild: boolean;
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
  const defaultTarget = parts.singleChild ? 'process' : 'group';
  const spec = (draft: ProcessDraft, after: readonly string[]): ProcessSpec => ({
    ...draft,
    signalTarget: draft.signalTarget ?? defaultTarget,
    after,
    output: draft.output ?? parts.output ?? DEFAULT_OUTPUT_MODE,
  });
  const processes = [
    ...steps.map((draft, index) => spec(draft, graph ? (draft.after ?? []) : defaultChain(steps, index))),
    ...apps.map((draft) => spec(draft, draft.after ?? steps.map((step) => step.name))),
  ];
  return {
    graceMs: parts.graceMs,
    logLevel: parts.logLevel,
    logFormat: parts.logFormat,
    statusAddr: parts.statusAddr,
    terminationLog: parts.terminationLog,
    controlPath: parts.controlPath,
    processes,
    drain: parts.drain,
    signalRewrites: parts.signalRewrites,
  };
}

function defaultChain(steps: readonly ProcessDraft[], index: number): string[] {
  return index === 0 ? [] : [steps[index - 1]!.name];
}

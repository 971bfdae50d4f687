import type { ProcessDraft } from './entry.ts';
import { createDefaultReadiness } from './normalize-readiness.ts';
import type { LogLevel, Plan, ProbeSpec, ProcessSpec } from './plan.ts';

export interface PlanParts {
  /** In list order; exactly one is the app. */
  readonly processes: readonly ProcessDraft[];
  /** --ready probes by sidecar name; timings come from the file when it has them. */
  readonly readyProbes: ReadonlyMap<string, ProbeSpec>;
  readonly graceMs: number;
  readonly logLevel: LogLevel;
}

/**
 * The plan, from parts that have passed every check. Without explicit
 * dependencies each entry waits for the one before it and the app for all of
 * them: Kubernetes' initContainers order, expressed as a graph.
 */
export function buildPlan(parts: PlanParts): Plan {
  const steps = parts.processes
    .filter((draft) => draft.role !== 'app')
    .map((draft) => applyReadyProbe(draft, parts.readyProbes));
  const apps = parts.processes.filter((draft) => draft.role === 'app');
  const processes: ProcessSpec[] = [
    ...steps.map((draft, index) => ({ ...draft, after: index === 0 ? [] : [steps[index - 1]!.name] })),
    ...apps.map((draft) => ({ ...draft, after: steps.map((step) => step.name) })),
  ];
  return { graceMs: parts.graceMs, logLevel: parts.logLevel, processes };
}

function applyReadyProbe(draft: ProcessDraft, readyProbes: ReadonlyMap<string, ProbeSpec>): ProcessDraft {
  const probe = readyProbes.get(draft.name);
  if (probe === undefined) return draft;
  const readiness = draft.readiness === undefined ? createDefaultReadiness(probe) : { ...draft.readiness, probe };
  return { ...draft, readiness };
}

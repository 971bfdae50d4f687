import type { Logger } from 'pino';
import type { ProcessGraph } from '../plan/process-graph.ts';

/**
 * The supervisor's one logging path: the pod-level logger, and for each process
 * a child logger carrying its `proc` and `role`, built once at start, so every
 * line about a process names it the same way (field names are stable: log
 * pipelines rely on them).
 */
export interface LifecycleLog {
  /** Lines about the whole pod: signals, teardown, the exit. */
  readonly pod: Logger;
  /** Lines about one process. */
  of(name: string): Logger;
}

export function createLifecycleLog(logger: Logger, graph: ProcessGraph): LifecycleLog {
  const byName = new Map(graph.order.map((spec) => [spec.name, logger.child({ proc: spec.name, role: spec.role })]));
  return {
    pod: logger,
    of(name) {
      const child = byName.get(name);
      if (child === undefined) throw new Error(`no process named ${name} in the plan`);
      return child;
    },
  };
}

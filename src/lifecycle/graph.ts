import type { Plan, ProcessSpec } from '../plan/plan.ts';

// The start order and its reverse, derived once from the plan's `after` lists.
// Startup starts an entry when its dependencies are done or started; teardown
// stops an entry only when everything that depends on it, directly or not, is
// down. With the default chain (each entry after the previous one) this is the
// Kubernetes order: list order up, reverse list order down.
export interface ProcessGraph {
  /** Every process in plan order. */
  readonly order: readonly ProcessSpec[];
  readonly app: ProcessSpec;
  spec(name: string): ProcessSpec;
  /** Every process that waits for `name`, directly or through others. */
  dependentsOf(name: string): readonly string[];
}

export function createProcessGraph(plan: Plan): ProcessGraph {
  const byName = new Map(plan.processes.map((spec) => [spec.name, spec]));
  const app = plan.processes.find((spec) => spec.role === 'app');
  if (app === undefined) throw new Error('plan has no app; normalization should have rejected it');

  const direct = new Map<string, string[]>(plan.processes.map((spec) => [spec.name, []]));
  for (const spec of plan.processes) {
    for (const dependency of spec.after) direct.get(dependency)?.push(spec.name);
  }
  const transitive = new Map<string, readonly string[]>();
  for (const spec of plan.processes) transitive.set(spec.name, collectDependents(spec.name, direct));

  return {
    order: plan.processes,
    app,
    spec(name) {
      const spec = byName.get(name);
      if (spec === undefined) throw new Error(`no process named ${name} in the plan`);
      return spec;
    },
    dependentsOf: (name) => transitive.get(name) ?? [],
  };
}

function collectDependents(name: string, direct: ReadonlyMap<string, readonly string[]>): readonly string[] {
  const seen = new Set<string>();
  const stack = [...(direct.get(name) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(direct.get(next) ?? []));
  }
  return [...seen];
}

import type { Plan, ProcessSpec } from './plan.ts';

// The start order and its reverse, derived once from the plan's `after` lists,
// for a run (src/lifecycle/) and for `sidecar-init plan` (src/cli/) alike,
// so what `plan` prints is what a run does. Startup starts an entry when its
// dependencies are done or started; teardown stops an entry only when
// everything that depends on it, directly or not, is down. With the default
// chain (each entry after the previous one) this is the Kubernetes order: list
// order up, reverse list order down.
//
// Every walk is a loop over a topological order, never a recursion: a chain of
// thousands of processes would otherwise exhaust the stack, and nothing here is
// quadratic in the number of processes (a transitive closure per process was:
// 500 MB for 10,000 processes).

export interface ProcessGraph {
  /** Every process in plan order. */
  readonly order: readonly ProcessSpec[];
  readonly app: ProcessSpec;
  spec(name: string): ProcessSpec;
  /** The processes that name `name` in their `after`, in plan order. */
  directDependentsOf(name: string): readonly ProcessSpec[];
  /** Every process in an order where each comes after everything it waits for (plan order where free). */
  readonly topological: readonly ProcessSpec[];
  /**
   * The names of the processes that something alive still waits for, directly
   * or through others (alive or not): teardown must not stop them yet. One
   * pass over the graph, O(processes + after entries).
   */
  heldBackBy(isAlive: (name: string) => boolean): ReadonlySet<string>;
}

export function createProcessGraph(plan: Plan): ProcessGraph {
  const byName = new Map(plan.processes.map((spec) => [spec.name, spec]));
  const app = plan.processes.find((spec) => spec.role === 'app');
  if (app === undefined) throw new Error('plan has no app; normalization should have rejected it');
  const dependents = new Map<string, ProcessSpec[]>(plan.processes.map((spec) => [spec.name, []]));
  for (const spec of plan.processes) {
    for (const dependency of spec.after) dependents.get(dependency)?.push(spec);
  }
  const topological = sortTopologically(plan.processes, byName, dependents);
  const spec = (name: string): ProcessSpec => {
    const found = byName.get(name);
    if (found === undefined) throw new Error(`no process named ${name} in the plan`);
    return found;
  };
  return {
    order: plan.processes,
    app,
    spec,
    directDependentsOf: (name) => dependents.get(name) ?? [],
    topological,
    heldBackBy(isAlive) {
      const held = new Set<string>();
      // Dependents come later in the topological order, so walking it backwards sees each of them first.
      for (let index = topological.length - 1; index >= 0; index -= 1) {
        const { name } = topological[index]!;
        if ((dependents.get(name) ?? []).some((dependent) => isAlive(dependent.name) || held.has(dependent.name))) held.add(name);
      }
      return held;
    },
  };
}

/** Kahn's algorithm, taking ready processes in plan order; config refuses cycles, so every process is placed. */
function sortTopologically(
  processes: readonly ProcessSpec[],
  byName: ReadonlyMap<string, ProcessSpec>,
  dependents: ReadonlyMap<string, readonly ProcessSpec[]>,
): ProcessSpec[] {
  const waiting = new Map(processes.map((spec) => [spec.name, spec.after.filter((name) => byName.has(name)).length]));
  const ready = processes.filter((spec) => waiting.get(spec.name) === 0);
  const sorted: ProcessSpec[] = [];
  for (let next = 0; next < ready.length; next += 1) {
    const spec = ready[next]!;
    sorted.push(spec);
    for (const dependent of dependents.get(spec.name) ?? []) {
      const left = waiting.get(dependent.name)! - 1;
      waiting.set(dependent.name, left);
      if (left === 0) ready.push(dependent);
    }
  }
  if (sorted.length !== processes.length) throw new Error('the plan has an after cycle; normalization should have rejected it');
  return sorted;
}

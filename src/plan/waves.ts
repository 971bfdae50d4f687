import type { ProcessSpec } from './plan.ts';
import type { ProcessGraph } from './process-graph.ts';

// The start and stop order as waves, for `sidecar-init plan`: everything in
// one wave starts (or is stopped) together, once the wave before it is
// through. Read off the same graph the lifecycle runs on: an entry starts when
// all it waits for are started; it is stopped when everything that waits for
// it is down. Without `after:` the default chain makes one entry per wave.

/** Start waves, each in plan order; the app is in the last. */
export function startWaves(graph: ProcessGraph): string[][] {
  const depth = new Map<string, number>();
  for (const spec of graph.topological) {
    let value = 0;
    for (const name of spec.after) value = Math.max(value, (depth.get(name) ?? -1) + 1);
    depth.set(spec.name, value);
  }
  return groupByDepth(graph.order, depth);
}

/**
 * Stop waves, each in plan order. Init steps are left out: they have finished
 * before the app starts, so they hold nothing back; the order still runs
 * through them (a sidecar an init step waited for stops with the wave after
 * whatever waited for that step).
 */
export function stopWaves(graph: ProcessGraph): string[][] {
  // How many waves of running processes must stop before this one.
  const above = new Map<string, number>();
  for (let index = graph.topological.length - 1; index >= 0; index -= 1) {
    const spec = graph.topological[index]!;
    let value = 0;
    for (const dependent of graph.directDependentsOf(spec.name)) {
      value = Math.max(value, above.get(dependent.name)! + (dependent.role === 'init' ? 0 : 1));
    }
    above.set(spec.name, value);
  }
  const running = graph.order.filter((spec) => spec.role !== 'init');
  return groupByDepth(running, above).filter((wave) => wave.length > 0);
}

function groupByDepth(processes: readonly ProcessSpec[], depth: ReadonlyMap<string, number>): string[][] {
  const waves: string[][] = [];
  for (const spec of processes) {
    const index = depth.get(spec.name)!;
    while (waves.length <= index) waves.push([]);
    waves[index]!.push(spec.name);
  }
  return waves;
}

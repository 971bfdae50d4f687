import type { Plan, ProcessSpec } from '../plan/plan.ts';

// The start and stop order as waves: everything in one wave starts (or is
// stopped) together, once the wave before it is through. Derived from the
// plan's `after` lists exactly as the lifecycle runs them: an entry starts
// when all it waits for are started; it is stopped when everything that waits
// for it is down. Without `after:` the default chain makes one entry per wave.

/** Start waves, each in plan order; the app is in the last. */
export function startWaves(plan: Plan): string[][] {
  const depth = new Map<string, number>();
  const depthOf = (spec: ProcessSpec): number => {
    const known = depth.get(spec.name);
    if (known !== undefined) return known;
    // The plan has no cycles (config refuses them), so this recursion ends.
    const value = Math.max(-1, ...spec.after.map((name) => depthOf(specNamed(plan, name)))) + 1;
    depth.set(spec.name, value);
    return value;
  };
  return groupByDepth(plan.processes, depthOf);
}

/**
 * Stop waves, each in plan order. Init steps are left out: they have finished
 * before the app starts, so they hold nothing back; the order still runs
 * through them (a sidecar an init step waited for stops with the wave after
 * whatever waited for that step).
 */
export function stopWaves(plan: Plan): string[][] {
  const dependents = new Map<string, ProcessSpec[]>(plan.processes.map((spec) => [spec.name, []]));
  for (const spec of plan.processes) for (const name of spec.after) dependents.get(name)?.push(spec);
  // How many waves of running processes must stop before this one.
  const above = new Map<string, number>();
  const aboveOf = (spec: ProcessSpec): number => {
    const known = above.get(spec.name);
    if (known !== undefined) return known;
    const value = Math.max(
      0,
      ...(dependents.get(spec.name) ?? []).map((dependent) => aboveOf(dependent) + (dependent.role === 'init' ? 0 : 1)),
    );
    above.set(spec.name, value);
    return value;
  };
  const running = plan.processes.filter((spec) => spec.role !== 'init');
  return groupByDepth(running, aboveOf).filter((wave) => wave.length > 0);
}

function groupByDepth(processes: readonly ProcessSpec[], depthOf: (spec: ProcessSpec) => number): string[][] {
  const waves: string[][] = [];
  for (const spec of processes) {
    const depth = depthOf(spec);
    while (waves.length <= depth) waves.push([]);
    waves[depth]!.push(spec.name);
  }
  return waves;
}

function specNamed(plan: Plan, name: string): ProcessSpec {
  const spec = plan.processes.find((candidate) => candidate.name === name);
  if (spec === undefined) throw new Error(`the plan names ${name} in an after list but has no such process`);
  return spec;
}

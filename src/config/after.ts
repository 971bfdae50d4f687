import type { Entry } from './process.ts';
import { at, type Report } from './problem.ts';
import { closestMatch, quote } from './result.ts';

// `after:` names processes this one waits for. Each name must be another init
// step or sidecar (the app starts after everything, so nothing can wait for
// it), and the waits must not go round in a circle, which would never start.

/** `replaced`: the file's app that the app after -- replaces; its after list is still checked. */
export function checkAfter(entries: readonly Entry[], replaced: readonly Entry[], report: Report): void {
  const byName = new Map(entries.flatMap((entry) => (entry.name === undefined ? [] : [[entry.name, entry] as const])));
  for (const entry of [...entries, ...replaced]) checkReferences(entry, byName, report);
  reportCycles(entries, byName, report);
}

function checkReferences(entry: Entry, byName: ReadonlyMap<string, Entry>, report: Report): void {
  const listed = new Set<string>();
  entry.after?.forEach((name, index) => {
    const origin = at(entry.origin, 'after', index);
    const target = byName.get(name);
    if (listed.has(name)) {
      report(origin, `${quote(name)} is already listed`);
    } else if (name === entry.name) {
      report(origin, `${quote(name)} is this process; a process cannot wait for itself`);
    } else if (target === undefined) {
      report(origin, unknownNameMessage(name, entry, byName));
    } else if (target.role === 'app') {
      report(origin, `${quote(name)} is the app, which starts after everything else; nothing can wait for it`);
    }
    listed.add(name);
  });
}

function unknownNameMessage(name: string, entry: Entry, byName: ReadonlyMap<string, Entry>): string {
  const candidates = [...byName.values()].flatMap((other) =>
    other.name !== undefined && other.name !== entry.name && other.role !== 'app' ? [other.name] : [],
  );
  const suggestion = closestMatch(name, candidates);
  return (
    `no process is named ${quote(name)}` +
    (suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`) +
    (candidates.length === 0 ? '; there is no other init step or sidecar to wait for' : `; it can wait for ${candidates.join(', ')}`)
  );
}

/**
 * Each cycle once, as `a -> b -> a` ("a waits for b, which waits for a"),
 * reported at the `after` item of its first process in list order.
 */
function reportCycles(entries: readonly Entry[], byName: ReadonlyMap<string, Entry>, report: Report): void {
  const order = new Map(entries.map((entry, index) => [entry, index]));
  const waitsFor = (entry: Entry): Entry[] =>
    (entry.after ?? []).flatMap((name) => {
      const target = byName.get(name);
      return target === undefined || target === entry || target.role === 'app' ? [] : [target];
    });
  const state = new Map<Entry, 'visiting' | 'done'>();
  const path: Entry[] = [];
  const reported = new Set<string>();

  // Depth first in list order, with an explicit stack: a chain of thousands of
  // processes would exhaust the call stack of a recursive walk.
  const visit = (root: Entry): void => {
    const stack: { entry: Entry; next: readonly Entry[]; index: number }[] = [];
    const enter = (entry: Entry): void => {
      state.set(entry, 'visiting');
      path.push(entry);
      stack.push({ entry, next: waitsFor(entry), index: 0 });
    };
    enter(root);
    while (stack.length > 0) {
      const top = stack.at(-1)!;
      const next = top.next[top.index];
      top.index += 1;
      if (next === undefined) {
        stack.pop();
        path.pop();
        state.set(top.entry, 'done');
      } else if (state.get(next) === 'visiting') {
        reportCycle(path.slice(path.indexOf(next)));
      } else if (state.get(next) === undefined) {
        enter(next);
      }
    }
  };

  const reportCycle = (cycle: readonly Entry[]): void => {
    // Start at the process listed first, so the same cycle always reads the same.
    const start = cycle.reduce((best, entry, index) => (order.get(entry)! < order.get(cycle[best]!)! ? index : best), 0);
    const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
    const text = [...rotated, rotated[0]!].map((entry) => entry.name).join(' -> ');
    if (reported.has(text)) return;
    reported.add(text);
    // Self-references are left out of the graph, so a cycle has two processes at least.
    const [first, second] = [rotated[0]!, rotated[1]!];
    const origin = at(first.origin, 'after', (first.after ?? []).indexOf(second.name!));
    report(origin, `these processes wait for each other in a cycle, so none would start: ${text}`);
  };

  for (const entry of entries) if (state.get(entry) === undefined) visit(entry);
}

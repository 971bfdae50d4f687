import { at, MAX_LISTED_PROBLEMS, type Report } from './config-error.ts';
import type { Entry } from './process.ts';
import { quote } from '../support/message-text.ts';
import { closestMatch } from '../support/closest-match.ts';

// `after:` names processes this one waits for. Each name must be another init
// step or sidecar (the app starts after everything, so nothing can wait for
// it), and the waits must not go round in a circle, which would never start.

/**
 * An unknown name gets a did-you-mean for the first this many (only so many
 * problems are listed) and its message names this many candidates: a config
 * of thousands of processes and as many typos costs a linear check, not a
 * quadratic one, and a message stays a line.
 */
const MAX_SUGGESTED = MAX_LISTED_PROBLEMS;
const MAX_NAMED_CANDIDATES = 10;

/** `replaced`: the file's app that the app after -- replaces; its after list is still checked. */
export function checkAfter(entries: readonly Entry[], replaced: readonly Entry[], report: Report): void {
  const byName = new Map(entries.flatMap((entry) => (entry.name === undefined ? [] : [[entry.name, entry] as const])));
  // What an entry can wait for: every other init step or sidecar, in list order.
  const waitable = [...byName.values()].flatMap((other) => (other.role === 'app' ? [] : [other.name!]));
  let unknown = 0;
  const unknownName = (name: string, entry: Entry) => {
    unknown += 1;
    return unknownNameMessage(name, entry, { waitable, byName }, unknown <= MAX_SUGGESTED);
  };
  for (const entry of [...entries, ...replaced]) checkReferences(entry, byName, unknownName, report);
  reportCycles(entries, byName, report);
}

function checkReferences(
  entry: Entry,
  byName: ReadonlyMap<string, Entry>,
  unknownName: (name: string, entry: Entry) => string,
  report: Report,
): void {
  const listed = new Set<string>();
  entry.after?.forEach((name, index) => {
    const origin = at(entry.origin, 'after', index);
    const target = byName.get(name);
    if (listed.has(name)) {
      report(origin, `${quote(name)} is already listed`);
    } else if (name === entry.name) {
      report(origin, `${quote(name)} is this process; a process cannot wait for itself`);
    } else if (target === undefined) {
      report(origin, unknownName(name, entry));
    } else if (target.role === 'app') {
      report(origin, `${quote(name)} is the app, which starts after everything else; nothing can wait for it`);
    }
    listed.add(name);
  });
}

function unknownNameMessage(
  name: string,
  entry: Entry,
  context: { readonly waitable: readonly string[]; readonly byName: ReadonlyMap<string, Entry> },
  suggest: boolean,
): string {
  const { waitable, byName } = context;
  const isOther = (candidate: string) => candidate !== entry.name;
  const suggestion = suggest ? closestMatch(name, waitable.filter(isOther)) : undefined;
  // An init step or sidecar is in `waitable` itself, and cannot wait for itself.
  const own = entry.name === undefined ? undefined : byName.get(entry.name);
  const count = waitable.length - (own !== undefined && own.role !== 'app' ? 1 : 0);
  const named: string[] = [];
  for (const candidate of waitable) {
    if (named.length === MAX_NAMED_CANDIDATES) break;
    if (isOther(candidate)) named.push(candidate);
  }
  const more = count > named.length ? ` and ${count - named.length} more` : '';
  return (
    `no process is named ${quote(name)}` +
    (suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`) +
    (count === 0 ? '; there is no other init step or sidecar to wait for' : `; it can wait for ${named.join(', ')}${more}`)
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

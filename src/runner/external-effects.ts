import type { ProcessSpec } from '../plan/plan.ts';
import type { FoundProcess } from '../plan/process-match.ts';
import type { Announcement } from '../plan/announced-state.ts';
import type { Runner } from './runner.ts';

// The effects of role external: looking for its processes until one appears
// (an external without a probe of its own is found by its presence probe
// instead, see watch-effects.ts), stopping it through the stop executor
// (main.ts wires src/externals/), and killing what is left when the budget is
// over. Each feeds its outcome back as an event; the executor never rejects
// and always ends within its budget.

const findKey = (name: string) => `external-find:${name}`;
const stopKey = (name: string) => `external-stop:${name}`;

/**
 * Searches /proc at the readiness period until a matching process appears (the
 * next search a period after the last one ended). A matcher that matches more
 * than its maxMatches is not found, and says so once.
 */
export function watchExternal(runner: Runner, spec: ProcessSpec): void {
  const external = spec.external;
  if (external === undefined) return;
  const signal = runner.aborts.open(findKey(spec.name));
  const periodMs = spec.readiness?.periodMs ?? 100;
  let warned = false;
  const look = async (): Promise<void> => {
    if (signal.aborted) return;
    const search = await runner.deps.externals.search(external.match);
    if (signal.aborted) return;
    if (search.kind === 'found') {
      runner.aborts.close(findKey(spec.name), signal);
      reportExternalFound(runner, spec.name, search.processes);
      return;
    }
    if (search.kind === 'too-many' && !warned) {
      warned = true;
      const pids = search.processes.map(({ pid }) => pid);
      runner.log
        .of(spec.name)
        .warn(
          { event: 'external-ambiguous', pids, maxMatches: external.match.maxMatches },
          `matches ${search.independent} processes, more than its maxMatches ${external.match.maxMatches}; not counted as found`,
        );
    }
    setTimeout(() => void look(), periodMs).unref?.();
  };
  void look();
}

/** The first processes an external's search found: logged once, and the lifecycle told. */
export function reportExternalFound(runner: Runner, name: string, found: readonly FoundProcess[]): void {
  const processes = found.map(({ pid, comm, uid }) => ({ pid, comm, uid }));
  runner.log.of(name).info({ event: 'external-found', pid: found[0]?.pid, processes }, `found ${describe(processes)}`);
  runner.dispatch({ type: 'external-found', name });
}

/** An `announced:FILE` external's first announcement: logged once, and the lifecycle told. */
export function reportAnnouncedFound(runner: Runner, name: string, file: string, announcement: Announcement): void {
  runner.log.of(name).info({ event: 'external-found', file, state: announcement.state }, `found ${file} announcing ${announcement.state}`);
  runner.dispatch({ type: 'external-found', name });
}

export function stopExternalProcess(runner: Runner, spec: ProcessSpec, budgetMs: number): void {
  const external = spec.external;
  if (external === undefined) return;
  runner.aborts.abort(findKey(spec.name));
  const abort = runner.aborts.open(stopKey(spec.name));
  const logger = runner.log.of(spec.name);
  logger.info({ event: 'stopping', budgetMs: Math.round(budgetMs) }, 'stopping');
  void runner.deps.externals.stop(spec.name, external, { budgetMs, logger, abort }).then((outcome) => {
    runner.aborts.close(stopKey(spec.name), abort);
    if (outcome === 'absent') logger.info({ event: 'external-absent' }, 'nothing to stop: no matching process');
    runner.dispatch({ type: 'external-stopped', name: spec.name, outcome });
  });
}

/** The budget is over or a second stop signal came: the executor SIGKILLs what is left now. */
export function killExternal(runner: Runner, name: string): void {
  runner.aborts.abort(stopKey(name));
}

function describe(processes: readonly { pid: number; comm: string; uid: number }[]): string {
  return processes.map(({ pid, comm, uid }) => `${comm} (PID ${pid}, UID ${uid})`).join(', ');
}

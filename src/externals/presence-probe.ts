import { describeMatch, type ProcessMatch } from '../plan/process-match.ts';
import type { Probe } from '../probes/probe.ts';
import type { FoundProcess } from '../plan/process-match.ts';
import { describeFound, searchProcesses } from './find-processes.ts';

/**
 * The readiness of an external without a probe: started once a matching
 * process exists. Containers of a pod start in any order, so until then each
 * period looks again. It is also how the external is found: `onFound` hears
 * the first processes it saw, so /proc is searched once per period, not twice.
 * A matcher that matches more processes than its maxMatches is not ready, and
 * says what it matched.
 */
export function createPresenceProbe(
  match: ProcessMatch,
  onFound: (processes: readonly FoundProcess[]) => void,
  selfPid: number = process.pid,
): Probe {
  const matcher = describeMatch(match);
  let reported = false;
  return {
    description: `a process with ${matcher}`,
    async check() {
      const search = await searchProcesses(match, { selfPid });
      switch (search.kind) {
        case 'none':
          return { ok: false, reason: `no process with ${matcher} yet` };
        case 'too-many':
          return { ok: false, reason: describeTooMany(match, search.independent, search.processes) };
        case 'found':
          if (!reported) onFound(search.processes);
          reported = true;
          return { ok: true };
      }
    },
  };
}

/** Why a matcher is refused: how many it matched, which, and how to fix it. */
export function describeTooMany(match: ProcessMatch, independent: number, processes: readonly FoundProcess[]): string {
  return (
    `${describeMatch(match)} matches ${independent} processes, more than its maxMatches ${match.maxMatches}: ${describeFound(processes)}; ` +
    'make the match narrower (add uid:, anchor cmdline with ^ and $) or raise maxMatches'
  );
}

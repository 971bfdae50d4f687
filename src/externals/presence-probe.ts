import type { Probe } from '../probes/probe.ts';
import { type ProcessMatcher, describeMatcher, findProcesses } from './find-processes.ts';

/**
 * The readiness of an external without a probe: started once a matching
 * process exists. Containers of a pod start in any order, so until then each
 * period looks again.
 */
export function createPresenceProbe(match: ProcessMatcher, selfPid: number = process.pid): Probe {
  const matcher = describeMatcher(match);
  return {
    description: `a process with ${matcher}`,
    check: async () =>
      findProcesses(match, { selfPid }).length > 0 ? { ok: true } : { ok: false, reason: `no process with ${matcher} yet` },
  };
}

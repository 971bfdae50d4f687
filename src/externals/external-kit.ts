import type { ExternalSpec } from '../config/plan.ts';
import type { ExternalKit } from '../lifecycle/runner.ts';
import { findProcesses } from './find-processes.ts';
import { stopExternal } from './stop-external.ts';
import { toProcessMatcher } from './to-matcher.ts';

/** What the lifecycle's runner uses for role external: the /proc finder and the stop executor. */
export function createExternalKit(): ExternalKit {
  return {
    find: (match) => findProcesses(toProcessMatcher(match)),
    async stop(name, external: ExternalSpec, { budgetMs, logger, abort }) {
      if (external.stop.kind === 'none') return 'absent';
      const outcome = await stopExternal(
        {
          name,
          match: toProcessMatcher(external.match),
          http: external.stop.http,
          signal: external.stop.signal,
          notFoundHint: external.notFoundHint,
        },
        { budgetMs, logger, abort },
      );
      return outcome.kind === 'left-running' ? 'left-running' : outcome.kind === 'absent' ? 'absent' : 'stopped';
    },
  };
}

import type { AnnouncementSource } from '../announce/announcement-source.ts';
import type { ExternalSpec } from '../plan/plan.ts';
import { presetOfExternal } from '../plan/stop-exit-warning.ts';
import type { ExternalKit } from '../runner/ports.ts';
import { createAnnouncedProbe, waitForAnnouncedExit } from './announced-external.ts';
import { searchProcesses } from './find-processes.ts';
import { createPresenceProbe } from './presence-probe.ts';
import { stopExternal } from './stop-external.ts';

/**
 * What the lifecycle's runner uses for role external: the /proc finder, the
 * presence probe and the stop executor; `announcements` reads the files of
 * announced:FILE externals.
 */
export function createExternalKit(announcements: AnnouncementSource): ExternalKit {
  return {
    search: (match) => searchProcesses(match),
    presenceProbe: (match, onFound) => createPresenceProbe(match, onFound),
    announcedProbe: (file, onFound) => createAnnouncedProbe(announcements, file, onFound),
    async stop(name, external: ExternalSpec, { budgetMs, logger, abort }) {
      // The lifecycle never asks to stop one with stop: none (it is left alone in the reducer).
      if (external.stop.kind === 'none') return 'stopped';
      if (external.announced !== undefined) return waitForAnnouncedExit(announcements, external.announced, { budgetMs, logger, abort });
      const outcome = await stopExternal(
        {
          name,
          match: external.match,
          http: external.stop.http,
          signal: external.stop.signal,
          notFoundHint: external.notFoundHint,
          preset: presetOfExternal(external),
        },
        { budgetMs, logger, abort },
      );
      switch (outcome.kind) {
        case 'absent':
        case 'stopped':
          return outcome.kind;
        case 'left-running':
        case 'refused':
          return 'left-running';
      }
    },
  };
}

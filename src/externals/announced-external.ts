import type { Logger } from 'pino';
import type { AnnouncementSource } from '../announce/announcement-source.ts';
import type { ExternalStopOutcome } from '../lifecycle/events.ts';
import type { Probe } from '../probes/probe.ts';
import type { Announcement } from '../plan/announced-state.ts';
import { hasReached } from '../plan/announced-state.ts';

// An external that is another container's sidecar-init, seen through the file
// its `--announce` keeps on a shared volume (`announced:FILE`): for pods that
// may not share a PID namespace, where no /proc search can find it and no
// signal could reach it. It is ready while the file says `ready`; at teardown
// it is not signalled: this side's own `--announce` reaching `exited` is what
// its `--until` waits for, and this side waits for its file to say `exited`.

/** Ready while FILE announces `ready`; `onFound` hears the first announcement of any state. */
export function createAnnouncedProbe(source: AnnouncementSource, file: string, onFound: (announcement: Announcement) => void): Probe {
  let reported = false;
  return {
    description: `announced:${file}`,
    async check() {
      const announcement = await source.read(file);
      if (announcement === undefined) return { ok: false, reason: `${file} announces nothing yet` };
      if (!reported) onFound(announcement);
      reported = true;
      return announcement.state === 'ready' ? { ok: true } : { ok: false, reason: `${file} announces ${announcement.state}` };
    },
    subscribe: (wake, signal) => source.watch(file, wake, signal),
  };
}

/**
 * Waits, within the budget, for FILE to announce `exited` (the other side saw
 * ours and stopped its app). Nothing to signal: it is another container's.
 * Never rejects.
 */
export function waitForAnnouncedExit(
  source: AnnouncementSource,
  file: string,
  { budgetMs, logger, abort }: { readonly budgetMs: number; readonly logger: Logger; readonly abort: AbortSignal },
): Promise<ExternalStopOutcome> {
  logger.info({ event: 'external-stop-wait', file }, `waiting for ${file} to announce exited`);
  return new Promise((resolve) => {
    const watching = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const end = (outcome: ExternalStopOutcome, state: string | undefined): void => {
      if (watching.signal.aborted) return;
      watching.abort();
      clearTimeout(timer);
      if (outcome === 'left-running') {
        logger.warn({ event: 'external-left-running', file, state }, `${file} still announces ${state ?? 'nothing'}; leaving it`);
      }
      resolve(outcome);
    };
    let last: string | undefined;
    timer = setTimeout(() => end('left-running', last), budgetMs);
    if (abort.aborted) return end('left-running', last);
    abort.addEventListener('abort', () => end('left-running', last), { once: true, signal: watching.signal });
    source.watch(
      file,
      (announcement) => {
        last = announcement?.state;
        if (announcement !== undefined && hasReached(announcement.state, 'exited')) end('stopped', last);
      },
      watching.signal,
    );
  });
}

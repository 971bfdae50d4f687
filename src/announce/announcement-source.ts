import type { Logger } from 'pino';
import type { Announcement } from '../plan/announced-state.ts';
import { monotonicMs } from '../support/monotonic-clock.ts';
import { type AnnouncementOwner, type AnnouncementRead, readAnnouncementFile } from './announcement-file.ts';
import { watchAnnouncement } from './watch-announcement.ts';

// Other containers' announce files, as every reader of them sees them
// (--until, an announced:FILE external's readiness and its teardown): only
// what the expected owner wrote counts. A file planted by someone else counts
// as no announcement, which is what its owner's file, renamed over, has become;
// the neighbour can hide a state this way (as it could by deleting the file),
// never make one up.

/**
 * At most this many warnings per file in each interval: the first few are told
 * (a forged state, then another), then the rest are counted into the next
 * one, so a neighbour renaming files in a loop cannot flood the log.
 */
export const IGNORED_WARNINGS_PER_INTERVAL = 3;
export const IGNORED_WARNING_INTERVAL_MS = 60_000;

/** Reads and watches of other containers' announce files, each checked against the owner. */
export interface AnnouncementSource {
  /** What FILE announces now; undefined while there is no valid announcement by the owner. */
  read(path: string): Promise<Announcement | undefined>;
  /** watch-announcement.ts, through the owner check. */
  watch(path: string, onChange: (announcement: Announcement | undefined) => void, signal: AbortSignal): void;
}

export function createAnnouncementSource(owner: AnnouncementOwner, logger: Logger, now: () => number = monotonicMs): AnnouncementSource {
  const warn = createIgnoredWarning(owner, logger, now);
  const read = async (path: string): Promise<Announcement | undefined> => {
    const result = await readAnnouncementFile(path, owner);
    if (result.kind === 'ignored') warn(path, result);
    return result.kind === 'announced' ? result.announcement : undefined;
  };
  return {
    read,
    watch: (path, onChange, signal) => watchAnnouncement(path, () => read(path), onChange, signal),
  };
}

type Ignored = Extract<AnnouncementRead, { kind: 'ignored' }>;

/** Ignored reads of a file are told up to the limit per interval; past it, counted and told with the next warning. */
function createIgnoredWarning(owner: AnnouncementOwner, logger: Logger, now: () => number): (path: string, ignored: Ignored) => void {
  // One entry per file read: the plan names them, so this stays as small as the config.
  const windows = new Map<string, { start: number; told: number; untold: number }>();
  return (path, ignored) => {
    const at = now();
    let window = windows.get(path);
    if (window === undefined || at - window.start >= IGNORED_WARNING_INTERVAL_MS) {
      window = { start: at, told: 0, untold: window?.untold ?? 0 };
      windows.set(path, window);
    }
    if (window.told >= IGNORED_WARNINGS_PER_INTERVAL) {
      window.untold += 1;
      return;
    }
    window.told += 1;
    const repeats = window.untold;
    window.untold = 0;
    const mode = `0${ignored.mode.toString(8)}`;
    const why =
      ignored.why === 'owner'
        ? `it is owned by uid ${ignored.uid}, not uid ${owner.uid} (--announcer-uid)`
        : `uid ${ignored.uid} owns it but group or others may write it (mode ${mode})`;
    const since = repeats === 0 ? '' : ` (and ${repeats} more ignored reads, not told)`;
    logger.warn(
      { event: 'announcement-ignored', file: path, uid: ignored.uid, mode, expectedUid: owner.uid, repeats },
      `ignored what ${path} says: ${why}${since}`,
    );
  };
}

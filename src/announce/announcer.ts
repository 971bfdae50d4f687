import type { Announcement } from '../plan/announced-state.ts';
import { formatAnnouncement, writeAnnouncementFile } from './announcement-file.ts';

/** `--announce FILE`: keeps the file at the lifecycle's current state. */
export interface Announcer {
  /** The state changed (same state again: nothing written). */
  update(announcement: Announcement): void;
  /** Resolves once the last state asked for is written (or failed); at exit, before the process ends. */
  flush(): Promise<void>;
}

/**
 * One write at a time and only the newest state waits: a slow volume delays
 * the file, never the lifecycle, and never writes an older state over a newer
 * one. A failed write is reported once per state and the next change tries again.
 */
export function createAnnouncer(path: string, onError: (error: unknown, announcement: Announcement) => void): Announcer {
  let last: string | undefined;
  let pending: Announcement | undefined;
  let writing: Promise<void> | undefined;
  const key = (announcement: Announcement) => `${announcement.state}:${announcement.exitCode ?? ''}`;

  function writeNext(): Promise<void> | undefined {
    const next = pending;
    if (next === undefined) return undefined;
    pending = undefined;
    return writeAnnouncementFile(path, formatAnnouncement(next, process.pid, new Date()))
      .catch((error: unknown) => onError(error, next))
      .then(() => {
        writing = writeNext();
      });
  }

  return {
    update(announcement) {
      if (key(announcement) === last) return;
      last = key(announcement);
      pending = announcement;
      writing ??= writeNext();
    },
    async flush() {
      while (writing !== undefined) await writing;
    },
  };
}

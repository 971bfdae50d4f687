import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
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
  const pinned = pinFolder(path);
  let last: string | undefined;
  let pending: Announcement | undefined;
  let writing: Promise<void> | undefined;
  const key = (announcement: Announcement) => `${announcement.state}:${announcement.exitCode ?? ''}`;

  function writeNext(): Promise<void> | undefined {
    const next = pending;
    if (next === undefined) return undefined;
    pending = undefined;
    return pinned()
      .then((target) => writeAnnouncementFile(target, formatAnnouncement(next, process.pid, new Date())))
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

/**
 * The path to write FILE by, through its folder as it was when first reached:
 * the folder is opened once and kept open, and the file is written through
 * /proc/self/fd/N/NAME, which the kernel resolves to that very folder. The
 * volume is shared with another container, which could otherwise replace a
 * folder on the path with a symlink and have sidecar-init (often root) create
 * and replace files of that name wherever it points. Until the folder exists,
 * the path as given.
 */
function pinFolder(path: string): () => Promise<string> {
  // Opened asynchronously: on a volume that hangs, the write waits, never the event loop.
  let folder: FileHandle | undefined;
  return async () => {
    if (folder === undefined) {
      try {
        folder = await open(dirname(path), constants.O_RDONLY | constants.O_DIRECTORY);
      } catch {
        return path;
      }
    }
    return `/proc/self/fd/${folder.fd}/${basename(path)}`;
  };
}

import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Announcement } from '../plan/announced-state.ts';

/** Without inotify (no such folder yet, or no watches left): how often the file is read. */
export const ANNOUNCE_POLL_MS = 250;
/** With inotify: a read now and then all the same, in case an event was lost (a volume that does not report them). */
const ANNOUNCE_SAFETY_POLL_MS = 2_000;

/**
 * Calls onChange with what the file announces (`read`: announcement-source.ts),
 * at once and then at every change (undefined while there is no valid
 * announcement). Woken by inotify on the file's folder where it can be
 * watched, by a timer otherwise; one read at a time, each bounded
 * (announcement-file.ts). Ends when `signal` aborts.
 */
export function watchAnnouncement(
  path: string,
  read: () => Promise<Announcement | undefined>,
  onChange: (announcement: Announcement | undefined) => void,
  signal: AbortSignal,
): void {
  let last: string | undefined = '';
  let reading = false;
  let again = false;
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;

  const check = (): void => {
    if (signal.aborted) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    void read().then((announcement) => {
      reading = false;
      if (signal.aborted) return;
      const key = announcement === undefined ? undefined : JSON.stringify(announcement);
      if (key !== last) {
        last = key;
        onChange(announcement);
      }
      if (again) {
        again = false;
        check();
      }
    });
  };

  const schedule = (): void => {
    if (signal.aborted) return;
    if (watcher === undefined) watcher = tryWatch();
    timer = setTimeout(
      () => {
        check();
        schedule();
      },
      watcher === undefined ? ANNOUNCE_POLL_MS : ANNOUNCE_SAFETY_POLL_MS,
    );
  };

  const tryWatch = (): FSWatcher | undefined => {
    try {
      const name = basename(path);
      const folderWatcher = watch(dirname(path), { persistent: false }, (_event, changed) => {
        if (changed === null || changed === name) check();
      });
      // The folder went away or the watch broke: back to polling, watching again on the next round.
      folderWatcher.on('error', () => {
        folderWatcher.close();
        if (watcher === folderWatcher) watcher = undefined;
      });
      return folderWatcher;
    } catch {
      return undefined;
    }
  };

  signal.addEventListener(
    'abort',
    () => {
      watcher?.close();
      clearTimeout(timer);
    },
    { once: true },
  );
  check();
  schedule();
}

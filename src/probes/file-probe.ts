import { stat, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Probe } from './probe.ts';
import { failure, runAttempt } from '../attempt/run-attempt.ts';

// Passes while a file exists: the sidecar touches it when it is ready (or a
// socket file appears). Not a Kubernetes probe kind; an exec `test -e` would
// cost a process per period and be seen only at the next period.
//
// Event-driven: an inotify watch (fs.watch) on the parent directory, because
// the file itself cannot be watched before it exists, and a watch on the
// directory also sees it replaced by rename (atomic writes) or removed.

/**
 * The fallback when the directory cannot be watched (it does not exist yet, or
 * the filesystem has no change events: NFS, some FUSE and overlay setups). One
 * stat() per tick; short, because a file probe promises to be prompt.
 */
export const FILE_POLL_MS = 50;

export function createFileProbe(path: string): Probe {
  const description = `file:${path}`;
  return {
    description,
    check: (timeoutMs, signal) =>
      runAttempt(timeoutMs, signal, (settle) => {
        // Asynchronous, so a hung network filesystem costs this attempt its
        // timeout instead of blocking PID 1's event loop; its late answer is ignored.
        stat(path, (error) => {
          settle(
            error === null
              ? { ok: true }
              : failure(`${description}: ${error.code === 'ENOENT' ? 'does not exist' : (error.code ?? error.message)}`),
          );
        });
        return noop;
      }),
    subscribe: (wake, signal) => watchFile(path, wake, signal),
  };
}

function watchFile(path: string, wake: () => void, signal: AbortSignal): void {
  if (signal.aborted) return;
  const name = basename(path);
  let watcher: FSWatcher | undefined;
  let poller: NodeJS.Timeout | undefined;

  /** wakeNow: the watch failed after it had started, so a change may have been missed. */
  const pollInstead = (wakeNow: boolean): void => {
    watcher?.close();
    watcher = undefined;
    if (poller !== undefined || signal.aborted) return;
    // Wakes only when existence changes, so a loop that is already ready is not
    // woken 20 times a second for nothing. A chain of timeouts, not an interval:
    // on a hung filesystem stat() calls would otherwise pile up in libuv's
    // threadpool (4 threads, shared with every other fs call) one per tick.
    // Assumed absent at first (no sync stat: a hung filesystem would block PID 1's
    // loop); if it was there all along, the cost is one extra attempt.
    let existed = false;
    const tick = (): void => {
      stat(path, (error) => {
        if (signal.aborted) return;
        const exists = error === null;
        if (exists !== existed) {
          existed = exists;
          wake();
        }
        poller = setTimeout(tick, FILE_POLL_MS);
      });
    };
    poller = setTimeout(tick, FILE_POLL_MS);
    if (wakeNow) wake();
  };

  signal.addEventListener(
    'abort',
    () => {
      watcher?.close();
      clearTimeout(poller);
    },
    { once: true },
  );

  try {
    // persistent: false would let the supervisor exit with a live watch; the
    // abort is what ends it, like every other probe resource.
    watcher = watch(dirname(path), (_event, changed) => {
      // No name on platforms that cannot tell; then any change may be ours.
      if (changed === null || changed === name) wake();
    });
    // inotify can fail after it started (the directory was removed, ENOSPC on watches).
    watcher.on('error', () => pollInstead(true));
  } catch {
    // Nothing to wake for: a loop subscribes as its first attempt starts, and that
    // attempt sees whatever happened before the poll's baseline.
    pollInstead(false);
  }
}

function noop(): void {}

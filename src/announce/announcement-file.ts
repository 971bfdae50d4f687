import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import type { Announcement } from '../plan/announced-state.ts';
import { isAnnouncedState } from '../plan/announced-state.ts';

// The announce file lives on a volume another container writes too, so every
// access assumes that container may be hostile: reads never follow a symlink,
// never block on a FIFO (O_NONBLOCK), read regular files only and at most
// MAX_ANNOUNCEMENT_BYTES; writes go to a fresh unpredictable name (O_EXCL)
// and are renamed into place, so a reader sees the old state or the new one,
// never half of one. Everything is asynchronous: the event loop never waits.

/** An announcement is one short JSON line; anything longer is not one. */
export const MAX_ANNOUNCEMENT_BYTES = 4_096;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const FILE_MODE = 0o644;

/** The JSON line written: the state, the exit code once exited, who wrote it and when. */
export function formatAnnouncement(announcement: Announcement, pid: number, now: Date): string {
  return `${JSON.stringify({ state: announcement.state, exitCode: announcement.exitCode, pid, at: now.toISOString() })}\n`;
}

/** What the file announces now; undefined when there is no file, or it is not an announcement (yet). */
export async function readAnnouncementFile(path: string): Promise<Announcement | undefined> {
  let text: string;
  try {
    const handle = await open(path, READ_FLAGS);
    try {
      if (!(await handle.stat()).isFile()) return undefined;
      const buffer = Buffer.alloc(MAX_ANNOUNCEMENT_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead > MAX_ANNOUNCEMENT_BYTES) return undefined;
      text = buffer.toString('utf8', 0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch {
    // Missing, a symlink, unreadable: not an announcement (the caller looks again later).
    return undefined;
  }
  return parseAnnouncement(text);
}

export function parseAnnouncement(text: string): Announcement | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { state, exitCode } = value as { state?: unknown; exitCode?: unknown };
  if (!isAnnouncedState(state)) return undefined;
  return Number.isInteger(exitCode) ? { state, exitCode: exitCode as number } : { state };
}

/** Writes the file atomically: a fresh O_EXCL file beside it, then rename. Rejects with the cause. */
export async function writeAnnouncementFile(path: string, text: string): Promise<void> {
  const partial = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, FILE_MODE);
    try {
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true }).catch(() => {});
    throw error;
  }
}

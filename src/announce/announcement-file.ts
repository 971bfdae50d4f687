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
// never half of one. What is read counts only when the file is owned by the
// uid that should write it and no one else may write it (a neighbour with
// write access to the folder can rename its own file over another's).
// Everything is asynchronous: the event loop never waits.

/** An announcement is one short JSON line; anything longer is not one. */
export const MAX_ANNOUNCEMENT_BYTES = 4_096;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const FILE_MODE = 0o644;

/** The JSON line written: the state, the exit code once exited, who wrote it and when. */
export function formatAnnouncement(announcement: Announcement, pid: number, now: Date): string {
  return `${JSON.stringify({ state: announcement.state, exitCode: announcement.exitCode, pid, at: now.toISOString() })}\n`;
}

/**
 * Who must own a file for what it says to count: the uid of the container that
 * writes it (announce-owner.ts says why the owner and the mode are checked).
 */
export interface AnnouncementOwner {
  readonly uid: number;
}

/** One read of another container's file. */
export type AnnouncementRead =
  /** Missing, a symlink, not a regular file, oversized, unreadable, or not an announcement (yet). */
  | { readonly kind: 'none' }
  | { readonly kind: 'announced'; readonly announcement: Announcement }
  /** Owned by another uid, or writable by others than its owner: what it says is not taken. */
  | { readonly kind: 'ignored'; readonly uid: number; readonly mode: number; readonly why: 'owner' | 'writable' };

const NONE: AnnouncementRead = { kind: 'none' };
/** Group or others may write it: anyone of them could have written what it says. */
const WRITABLE_BY_OTHERS = 0o022;

/**
 * What the file announces now. The owner and mode are those of the file read
 * (fstat of the descriptor): a check by path could look at one file and read
 * another, swapped in between by whoever else writes the folder.
 */
export async function readAnnouncementFile(path: string, owner: AnnouncementOwner): Promise<AnnouncementRead> {
  let text: string;
  try {
    const handle = await open(path, READ_FLAGS);
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) return NONE;
      if (stat.uid !== owner.uid) return { kind: 'ignored', uid: stat.uid, mode: stat.mode & 0o7777, why: 'owner' };
      if ((stat.mode & WRITABLE_BY_OTHERS) !== 0) return { kind: 'ignored', uid: stat.uid, mode: stat.mode & 0o7777, why: 'writable' };
      const buffer = Buffer.alloc(MAX_ANNOUNCEMENT_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead > MAX_ANNOUNCEMENT_BYTES) return NONE;
      text = buffer.toString('utf8', 0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch {
    // Missing, a symlink, unreadable: not an announcement (the caller looks again later).
    return NONE;
  }
  const announcement = parseAnnouncement(text);
  return announcement === undefined ? NONE : { kind: 'announced', announcement };
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

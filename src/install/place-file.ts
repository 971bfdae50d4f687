import { createHash, randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { describeFsError, InstallError } from './install-error.ts';
import type { InstallFolder } from './install-folder.ts';

// DIR is often a volume other containers (other users) can write, with no
// sticky bit: a neighbour can list it, and rename or replace any entry in it,
// install's own included. So each file is created under a fresh unguessable
// name with O_CREAT|O_EXCL|O_NOFOLLOW (never an entry someone planted) and
// every later step (write, fchmod, fsync, read back, hash) goes through that
// one descriptor: a symlink or FIFO put in place of the partial name is never
// opened, chmodded or hashed. Only the rename uses names, and a rename never
// follows a symlink; what it moved into place is then checked (by lstat, so
// nothing found there is opened) to be the very inode written. Anything else
// is an error naming the file, never a success.

const PARTIAL_PREFIX = '.sidecar-init.';
const PARTIAL_SUFFIX = '.partial';
const CREATE_NEW = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** Until the file is whole, only its owner may read it. */
const PARTIAL_MODE = 0o600;
const READ_BACK_CHUNK_BYTES = 1 << 20;

export interface InstalledFile {
  readonly path: string;
  readonly size: number;
  /** Of the bytes install wrote, never of anything read from a name. */
  readonly sha256: string;
}

/** Hands the file's content, in chunks, to `write`. */
export type FillFile = (write: (bytes: Uint8Array) => void) => void;

/**
 * Writes DIR/NAME through a temporary name beside it: filled, given `mode`,
 * synced, read back, renamed into place and checked to be what was written.
 */
export function placeFile(folder: InstallFolder, name: string, mode: number, fill: FillFile): InstalledFile {
  const partial = `${PARTIAL_PREFIX}${randomBytes(6).toString('hex')}${PARTIAL_SUFFIX}`;
  const fd = createPartial(folder, partial);
  let renamed = false;
  try {
    const sha256 = fillThrough(folder, fd, mode, fill);
    const written = fstatSync(fd);
    if (readBack(fd, written.size) !== sha256) {
      throw new InstallError(
        `cannot install into ${folder.path}: ${folder.shown(name)} read back differently from what was written; disk or filesystem error`,
      );
    }
    renameInto(folder, partial, name);
    renamed = true;
    checkPlaced(folder, name, written);
    return { path: folder.shown(name), size: written.size, sha256 };
  } catch (error) {
    // The partial name may hold what a neighbour put there by now: unlinking removes their entry, never what it points to.
    if (!renamed) removeQuietly(folder.entry(partial));
    throw error;
  } finally {
    closeSync(fd);
  }
}

function createPartial(folder: InstallFolder, partial: string): number {
  try {
    return openSync(folder.entry(partial), CREATE_NEW, PARTIAL_MODE);
  } catch (error) {
    throw fsError(folder, error);
  }
}

/** Fills the file through `fd`, gives it `mode` and syncs it; the sha256 of the bytes written. */
function fillThrough(folder: InstallFolder, fd: number, mode: number, fill: FillFile): string {
  const hash = createHash('sha256');
  try {
    fill((bytes) => {
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      hash.update(bytes);
    });
    // The mode before the sync, so that it is durable with the content.
    fchmodSync(fd, mode);
    fsyncSync(fd);
  } catch (error) {
    throw fsError(folder, error);
  }
  return hash.digest('hex');
}

/** The sha256 of the file as it reads back through `fd` (the executable is over 100 MB: in chunks). */
function readBack(fd: number, size: number): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(Math.min(READ_BACK_CHUNK_BYTES, Math.max(size, 1)));
  for (let position = 0; ; ) {
    const count = readSync(fd, buffer, 0, buffer.length, position);
    if (count === 0) break;
    hash.update(buffer.subarray(0, count));
    position += count;
  }
  return hash.digest('hex');
}

function renameInto(folder: InstallFolder, partial: string, name: string): void {
  try {
    renameSync(folder.entry(partial), folder.entry(name));
  } catch (error) {
    throw new InstallError(
      `cannot install into ${folder.path}: could not rename into ${folder.shown(name)}: ${describeFsError(error)}; ` +
        'give a directory this user can write, where that name is not a folder',
      { cause: error },
    );
  }
}

/**
 * A neighbour may have swapped the partial name for their own entry before
 * the rename: then the rename moved theirs into place. lstat tells, without
 * opening or following what is there.
 */
function checkPlaced(folder: InstallFolder, name: string, written: Stats): void {
  const placed = lstatSync(folder.entry(name), { throwIfNoEntry: false });
  if (placed !== undefined && placed.dev === written.dev && placed.ino === written.ino) return;
  throw new InstallError(
    `cannot install into ${folder.path}: ${folder.shown(name)} is not the file install wrote: another user renamed or replaced ` +
      `entries in ${folder.path} while install ran; install into a folder no other user can write until install is done`,
  );
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone, or a folder a neighbour put there: nothing of ours to remove.
  }
}

function fsError(folder: InstallFolder, error: unknown): InstallError {
  if (error instanceof InstallError) return error;
  return new InstallError(`cannot install into ${folder.path}: ${describeFsError(error)}; give a directory this user can write`, {
    cause: error,
  });
}

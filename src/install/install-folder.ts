import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { errorCode } from '../support/error-code.ts';
import { join } from 'node:path';
import { describeFsError, InstallError } from './install-error.ts';

// DIR's own path is the user's choice (it may well go through a symlink, as
// /bin does on merged-/usr images) and is followed once, here. Everything
// after reaches DIR's entries through the descriptor opened then, as
// /proc/self/fd/N/NAME: whoever can rename folders above DIR later cannot
// move install's files, or the check of what landed, somewhere else.

/** DIR as install first reached it. */
export interface InstallFolder {
  /** DIR as given, for messages. */
  readonly path: string;
  readonly fd: number;
  /** A path to NAME in this very folder (through /proc/self/fd/N when /proc is there). */
  entry(name: string): string;
  /** DIR/NAME, as the user reads it. */
  shown(name: string): string;
  /** The folder's device and inode as opened: what must still be at its name when install is done. */
  readonly dev: number;
  readonly ino: number;
}

export function openInstallFolder(dir: string): InstallFolder {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (error) {
    throw new InstallError(`cannot install into ${dir}: ${describeFsError(error)}; give a directory that exists and this user can write`, {
      cause: error,
    });
  }
  const pinned = `/proc/self/fd/${fd}`;
  // Without /proc (rare: a bare chroot) the path as given, resolved again at each step.
  const base = statSync(pinned, { throwIfNoEntry: false })?.isDirectory() === true ? pinned : dir;
  const { dev, ino } = fstatSync(fd);
  return { path: dir, fd, entry: (name) => join(base, name), shown: (name) => join(dir, name), dev, ino };
}

const FOLDER_MODE = 0o755;
const WRITABLE_BY_OTHERS = 0o022;

/**
 * DIR/NAME, a folder of install's own: made if missing, then opened without
 * following a symlink and kept only if this user owns it (a neighbour who
 * made it first could change what is in it at any time), no longer writable
 * by group or others. Its entries too are reached through its descriptor.
 */
export function openRuntimeFolder(parent: InstallFolder, name: string): InstallFolder {
  const shown = parent.shown(name);
  try {
    mkdirSync(parent.entry(name), FOLDER_MODE);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw refusal(parent, `could not make ${shown}: ${describeFsError(error)}`, error);
  }
  let fd: number;
  try {
    fd = openSync(parent.entry(name), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const reason = errorCode(error) === 'ELOOP' || errorCode(error) === 'ENOTDIR' ? 'is not a folder' : describeFsError(error);
    throw refusal(parent, `${shown} ${reason}`, error);
  }
  let stat: Stats;
  try {
    stat = fstatSync(fd);
    const uid = process.geteuid?.() ?? 0;
    if (stat.uid !== uid) {
      throw new InstallError(
        `cannot install into ${parent.path}: ${shown} belongs to uid ${stat.uid}, not to this user (uid ${uid}); ` +
          'remove it, or install into a folder no other user can write',
      );
    }
    if ((stat.mode & WRITABLE_BY_OTHERS) !== 0) fchmodSync(fd, FOLDER_MODE);
  } catch (error) {
    closeSync(fd);
    if (error instanceof InstallError) throw error;
    throw refusal(parent, `${shown}: ${describeFsError(error)}`, error);
  }
  const pinned = `/proc/self/fd/${fd}`;
  const base = statSync(pinned, { throwIfNoEntry: false })?.isDirectory() === true ? pinned : parent.entry(name);
  return { path: parent.path, fd, entry: (entry) => join(base, entry), shown: (entry) => join(shown, entry), dev: stat.dev, ino: stat.ino };
}

/**
 * That DIR/NAME is still the folder install opened and wrote into (its device
 * and inode, by lstat: nothing found there is opened). A neighbour who can
 * write DIR can rename the runtime folder away while install writes into it
 * and put a folder of its own at its name: then the files install wrote are
 * not where it would say, and the launcher would start the neighbour's.
 */
export function checkFolderInPlace(parent: InstallFolder, name: string, folder: InstallFolder): void {
  const found = lstatSync(parent.entry(name), { throwIfNoEntry: false });
  if (found?.isDirectory() && found.dev === folder.dev && found.ino === folder.ino) return;
  throw new InstallError(
    `cannot install into ${parent.path}: ${parent.shown(name)} is not the folder install wrote: another user renamed or replaced ` +
      `entries in ${parent.path} while install ran; install into a folder no other user can write until install is done`,
  );
}

function refusal(parent: InstallFolder, what: string, cause: unknown): InstallError {
  return new InstallError(`cannot install into ${parent.path}: ${what}; give a directory this user can write`, { cause });
}

/** The renames into DIR are durable only once DIR itself is synced. */
export function syncFolder(folder: InstallFolder): void {
  try {
    fsyncSync(folder.fd);
  } catch (error) {
    throw new InstallError(`cannot install into ${folder.path}: ${describeFsError(error)} while syncing it; disk or filesystem error`, {
      cause: error,
    });
  }
}

export function closeFolder(folder: InstallFolder): void {
  closeSync(folder.fd);
}

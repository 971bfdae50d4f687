import { closeSync, constants, fsyncSync, openSync, statSync } from 'node:fs';
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
  return { path: dir, fd, entry: (name) => join(base, name), shown: (name) => join(dir, name) };
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

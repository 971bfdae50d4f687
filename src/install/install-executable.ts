import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, copyFileSync, fsyncSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BESIDE_SUFFIX, writeNew } from '../process/embedded-addon.ts';
import { errorCode } from '../plan/error-code.ts';

// `sidecar-init install DIR`: the single executable copies itself into DIR
// with its addon beside it, so an image or an init container can put
// sidecar-init into a shared volume and the copy starts on a read-only root
// with no writable /tmp (it loads DIR/sidecar-init.node after checking it).

/** The name of the installed executable; its addon is this name plus BESIDE_SUFFIX. */
export const INSTALLED_NAME = 'sidecar-init';
const EXECUTABLE_MODE = 0o755;
const ADDON_MODE = 0o644;
const HASH_CHUNK_BYTES = 1 << 20;

export interface InstalledFile {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/** Why DIR could not be installed into, in one line with the fix; exit 2. */
export class InstallError extends Error {
  readonly code = 'ERR_INSTALL';
}

/**
 * Writes DIR/sidecar-init.node (the embedded addon) and then DIR/sidecar-init
 * (a copy of `execPath`), each under a temporary name in DIR, synced, checked
 * against what it must hold and renamed into place: a reader of DIR sees the
 * previous files or these, whole, and the executable never without its addon.
 */
export function installExecutable(dir: string, execPath: string, addon: Uint8Array): InstalledFile[] {
  checkDir(dir);
  const executable = join(dir, INSTALLED_NAME);
  const addonFile = `${executable}${BESIDE_SUFFIX}`;
  const addonDigest = sha256(addon);
  const installedAddon = placeFile(dir, addonFile, (partial) => writeNew(partial, addon, ADDON_MODE), addonDigest);
  const sourceDigest = hashFile(execPath);
  const installedExecutable = placeFile(
    dir,
    executable,
    (partial) => {
      copyFileSync(execPath, partial, constants.COPYFILE_EXCL);
      chmodSync(partial, EXECUTABLE_MODE);
    },
    sourceDigest,
  );
  syncDir(dir);
  return [installedExecutable, installedAddon];
}

function checkDir(dir: string): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(dir);
  } catch (error) {
    throw new InstallError(`cannot install into ${dir}: ${describeFsError(error)}; give a directory that exists and this user can write`);
  }
  if (!stat.isDirectory()) throw new InstallError(`cannot install into ${dir}: not a directory`);
}

/** Writes `file` through a temporary name beside it; the content read back must hash to `digest`. */
function placeFile(dir: string, file: string, write: (partial: string) => void, digest: string): InstalledFile {
  const partial = join(dir, `.${INSTALLED_NAME}.${randomBytes(6).toString('hex')}.partial`);
  try {
    try {
      write(partial);
      syncFile(partial);
    } catch (error) {
      throw new InstallError(`cannot install into ${dir}: ${describeFsError(error)}; give a directory this user can write`, {
        cause: error,
      });
    }
    const written = hashFile(partial);
    if (written !== digest) {
      throw new InstallError(
        `cannot install into ${dir}: ${file} read back with sha256 ${written}, expected ${digest}; disk or filesystem error`,
      );
    }
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  return { path: file, size: statSync(file).size, sha256: digest };
}

function syncFile(file: string): void {
  const fd = openSync(file, constants.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The renames are durable only once the folder itself is synced. */
function syncDir(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Hashes a file in chunks: the executable is over 100 MB. */
function hashFile(file: string): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(HASH_CHUNK_BYTES);
  const fd = openSync(file, constants.O_RDONLY);
  try {
    for (;;) {
      const count = readSync(fd, buffer, 0, buffer.length, null);
      if (count === 0) break;
      hash.update(buffer.subarray(0, count));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

function describeFsError(error: unknown): string {
  const code = errorCode(error);
  switch (code) {
    case 'ENOENT':
      return 'no such directory';
    case 'ENOTDIR':
      return 'not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only filesystem';
    case 'ENOSPC':
      return 'no space left';
    default:
      return code ?? (error instanceof Error ? error.message : String(error));
  }
}

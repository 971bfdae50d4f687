import { constants } from 'node:fs';
import { posix } from 'node:path';
import { errorCode } from '../support/error-code.ts';
import { closeDescriptor, openDescriptor } from './descriptor-calls.ts';

// Node has no openat2(RESOLVE_NO_SYMLINKS), so the path is walked one
// component at a time, each folder opened O_DIRECTORY|O_NOFOLLOW through the
// descriptor of the one before (/proc/self/fd/N/NAME, which the kernel
// resolves in that very folder). A neighbour who can write any folder on the
// path may rename entries in it whenever they like, but whatever they put
// there is a symlink that is refused or an entry that is opened and then held:
// no component is looked up twice, and none is followed.

const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const ROOT_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;

/** Why a path could not be opened without symlinks: the component at fault, in words, and the system error's code. */
export class NoFollowOpenError extends Error {
  readonly code: string;
  constructor(message: string, code: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/**
 * Opens the absolute `path` with `flags` (O_NOFOLLOW is added), following no
 * symlink anywhere on it; `..` is taken lexically, as it means without symlinks.
 * Resolves with the descriptor, which the caller closes.
 */
export async function openWithoutSymlinks(path: string, flags: number, mode: number): Promise<number> {
  const names = posix
    .normalize(path)
    .split('/')
    .filter((name) => name !== '');
  const last = names.pop();
  if (!path.startsWith('/') || last === undefined) throw new NoFollowOpenError(`${path}: not an absolute path to a file`, 'EINVAL');
  let folder = await openDescriptor('/', ROOT_FLAGS, 0);
  try {
    await checkProcMounted(folder);
    for (const [index, name] of names.entries()) {
      const next = await openIn(folder, name, FOLDER_FLAGS, 0, `/${names.slice(0, index + 1).join('/')}`);
      await closeDescriptor(folder);
      folder = next;
    }
    return await openIn(folder, last, flags | constants.O_NOFOLLOW, mode, posix.join('/', ...names, last));
  } finally {
    await closeDescriptor(folder);
  }
}

async function openIn(folder: number, name: string, flags: number, mode: number, shown: string): Promise<number> {
  try {
    return await openDescriptor(`/proc/self/fd/${folder}/${name}`, flags, mode);
  } catch (error) {
    const code = errorCode(error) ?? 'EIO';
    throw new NoFollowOpenError(`${shown}: ${describeOpenError(code, (flags & constants.O_DIRECTORY) !== 0)}`, code, { cause: error });
  }
}

/** Without /proc every step would fail as if the name were missing: say what is missing instead. */
async function checkProcMounted(root: number): Promise<void> {
  try {
    await closeDescriptor(await openDescriptor(`/proc/self/fd/${root}`, ROOT_FLAGS, 0));
  } catch (error) {
    throw new NoFollowOpenError('/proc is not mounted, and the path is opened through it so that no symlink on it is followed', 'ENOPROC', {
      cause: error,
    });
  }
}

function describeOpenError(code: string, folder: boolean): string {
  switch (code) {
    case 'ELOOP':
      return 'a symlink, which is not followed';
    case 'ENOTDIR':
      // O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR, not ELOOP.
      return folder ? 'not a folder (a symlink is not followed)' : 'not a folder';
    case 'ENOENT':
      return 'no such file or folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only filesystem';
    case 'ENXIO':
      return 'a FIFO with no reader, or a socket';
    case 'EISDIR':
      return 'a folder';
    default:
      return code;
  }
}

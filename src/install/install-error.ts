import { errorCode } from '../support/error-code.ts';

/** Why DIR could not be installed into, in one line with the fix; exit 2. */
export class InstallError extends Error {
  readonly code = 'ERR_INSTALL';
}

/** A file-system error in the words of someone choosing DIR. */
export function describeFsError(error: unknown): string {
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

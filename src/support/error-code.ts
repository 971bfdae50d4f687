/**
 * The `code` of a system error (ENOENT, ESRCH, ECONNREFUSED, …), or undefined
 * for anything else. Node's own and the native addon's alike: the addon codes
 * a failed system call with its errno name too (napi-util.h).
 */
export function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

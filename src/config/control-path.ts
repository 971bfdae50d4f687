import { fail, ok, quote, type Result } from './result.ts';

// --control, control and SIDECAR_INIT_CONTROL: where the control socket is
// made. An absolute path, because a relative one would depend on the directory
// sidecar-init happened to start in, which `sidecar-init ctl` may not share;
// and short enough for a Unix socket's address (108 bytes with its NUL).

const MAX_SOCKET_PATH_BYTES = 107;

export function parseControlPath(text: string): Result<string> {
  if (!text.startsWith('/')) return fail(`${quote(text)} is not an absolute path; give one, e.g. /run/sidecar-init.sock`);
  if (text.includes('\0')) return fail('the path has a NUL character, which no file name can hold');
  if (text.endsWith('/')) return fail(`${quote(text)} names a directory; give the socket's own name, e.g. /run/sidecar-init.sock`);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_SOCKET_PATH_BYTES) return fail(`is ${bytes} bytes long; a Unix socket's path holds at most ${MAX_SOCKET_PATH_BYTES}`);
  return ok(text);
}

import { fail, ok, type Result } from './result.ts';
import { quote } from './message-text.ts';

// --control, control and SIDECAR_INIT_CONTROL: where the control socket is
// made. An absolute path, because a relative one would depend on the directory
// sidecar-init happened to start in, which `sidecar-init ctl` may not share;
// and short enough for a Unix socket's address (108 bytes with its NUL) with
// room to spare: the socket is first bound under a name beside it that may be
// up to 7 bytes longer (control-server.ts).

/** A Unix socket's path holds 107 bytes; the name the socket is bound under first takes up to 7 more than PATH. */
const MAX_CONTROL_PATH_BYTES = 100;

/** `--control none`: no control socket, not even the default one. */
export const NO_CONTROL = 'none';

export function parseControlPath(text: string): Result<string> {
  if (text === NO_CONTROL) return ok(text);
  if (!text.startsWith('/')) return fail(`${quote(text)} is not an absolute path; give one, e.g. /run/sidecar-init.sock, or none`);
  if (text.includes('\0')) return fail('the path has a NUL character, which no file name can hold');
  if (text.endsWith('/')) return fail(`${quote(text)} names a directory; give the socket's own name, e.g. /run/sidecar-init.sock`);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_CONTROL_PATH_BYTES)
    return fail(
      `is ${bytes} bytes long; at most ${MAX_CONTROL_PATH_BYTES} (a Unix socket's path holds 107, and the socket is bound under a longer name first)`,
    );
  return ok(text);
}

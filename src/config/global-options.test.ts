import { describe, expect, it } from 'vitest';
import { parseControlPath } from './global-options.ts';

describe('parseControlPath', () => {
  it('takes an absolute path of up to 100 bytes', () => {
    expect(parseControlPath('/run/sidecar-init.sock')).toEqual({ ok: true, value: { kind: 'path', path: '/run/sidecar-init.sock' } });
    const longest = `/${'s'.repeat(99)}`;
    expect(parseControlPath(longest)).toEqual({ ok: true, value: { kind: 'path', path: longest } });
    expect(parseControlPath('none')).toEqual({ ok: true, value: { kind: 'none' } });
  });

  it('refuses a relative path, a NUL, a directory and a path too long for a socket, saying what to give', () => {
    expect(parseControlPath('run/s.sock')).toEqual({
      ok: false,
      message: '"run/s.sock" is not an absolute path; give one, e.g. /run/sidecar-init.sock, or none',
    });
    expect(parseControlPath('/run/a\0b')).toEqual({ ok: false, message: 'the path has a NUL character, which no file name can hold' });
    expect(parseControlPath('/run/')).toEqual({
      ok: false,
      message: `"/run/" names a directory; give the socket's own name, e.g. /run/sidecar-init.sock`,
    });
    // Bytes, not characters: 50 'é' are 100 bytes, and the slash makes 101.
    expect(parseControlPath(`/${'é'.repeat(50)}`)).toEqual({
      ok: false,
      message: "is 101 bytes long; at most 100 (a Unix socket's path holds 107, and the socket is bound under a longer name first)",
    });
  });
});

import { describe, expect, it } from 'vitest';
import { parseStatusAddress } from './status-address.ts';

describe('parseStatusAddress', () => {
  it('reads HOST:PORT, [IPv6]:PORT and :PORT (every interface)', () => {
    expect(parseStatusAddress('127.0.0.1:9797')).toEqual({ ok: true, value: { host: '127.0.0.1', port: 9797 } });
    expect(parseStatusAddress('localhost:0')).toEqual({ ok: true, value: { host: 'localhost', port: 0 } });
    expect(parseStatusAddress('[::1]:9797')).toEqual({ ok: true, value: { host: '::1', port: 9797 } });
    expect(parseStatusAddress('[::]:9797')).toEqual({ ok: true, value: { host: '::', port: 9797 } });
    expect(parseStatusAddress(':9797')).toEqual({ ok: true, value: { host: '::', port: 9797 } });
  });

  it('says what is wrong and what would do', () => {
    expect(parseStatusAddress('9797')).toEqual({ ok: false, message: expect.stringMatching(/^"9797" has no port; use HOST:PORT/) });
    expect(parseStatusAddress('::1:9797')).toEqual({ ok: false, message: expect.stringContaining('an IPv6 address goes in brackets') });
    expect(parseStatusAddress('host:99999')).toEqual({
      ok: false,
      message: expect.stringContaining('the port must be a number from 0 to 65535'),
    });
    expect(parseStatusAddress('host:http')).toEqual({ ok: false, message: expect.stringContaining('the port must be a number') });
    expect(parseStatusAddress('http://host:80')).toEqual({ ok: false, message: expect.stringContaining('does not start with a host') });
  });

  const EXAMPLE = 'use HOST:PORT, e.g. 0.0.0.0:9797, 127.0.0.1:9797, [::]:9797 or :9797';

  it.each(['[::1:9797', '::1]:9797'])('refuses %j, an IPv6 address bracketed on one side only', (text) => {
    expect(parseStatusAddress(text)).toEqual({
      ok: false,
      message: `${JSON.stringify(text)}: an IPv6 address goes in brackets; ${EXAMPLE}`,
    });
  });

  it.each(['localhost]:9797', 'a[b:9797', '[[::1]]:9797'])('refuses %j, a bracket that is not around the whole host', (text) => {
    expect(parseStatusAddress(text)).toEqual({
      ok: false,
      message: `${JSON.stringify(text)} does not start with a host name or address; ${EXAMPLE}`,
    });
  });

  // Number() would read each of these as a port.
  it.each([':+9797', ': 9797', ':9797 ', ':1e3', ':0x50'])('refuses the port of %j', (text) => {
    expect(parseStatusAddress(text)).toEqual({
      ok: false,
      message: `${JSON.stringify(text)}: the port must be a number from 0 to 65535; ${EXAMPLE}`,
    });
  });
});

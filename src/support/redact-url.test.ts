import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrlsIn } from './redact-url.ts';

const SECRET = 'S3CRET-T0KEN';

describe('redactUrl', () => {
  it('replaces userinfo, query and fragment and keeps the endpoint', () => {
    expect(redactUrl('http://127.0.0.1:8080/live?token=LIVETOKEN')).toBe('http://127.0.0.1:8080/live?***');
    expect(redactUrl('http://user:DRAINPASS@127.0.0.1:9/drain#frag')).toBe('http://***@127.0.0.1:9/drain#***');
    expect(redactUrl('http://user@[::1]:15000/quitquitquit?a=1&b=2')).toBe('http://***@[::1]:15000/quitquitquit?***');
    expect(redactUrl('http://127.0.0.1:15020/quitquitquit')).toBe('http://127.0.0.1:15020/quitquitquit');
  });

  it('cuts the text by its characters, whether it parses or not', () => {
    expect(redactUrl('http://user:DRAINPASS@:99999/x')).toBe('http://***@:99999/x');
    expect(redactUrl('http://user:pa/ss@host:bad')).toBe('http://***@host:bad');
    expect(redactUrl('not a url?token=abc')).toBe('not a url?***');
    expect(redactUrl('//user:pw@somewhere/x')).toBe('//***@somewhere/x');
    expect(redactUrl('')).toBe('');
    // As written, not as a parser would normalize it.
    expect(redactUrl('http:///ready')).toBe('http:///ready');
    expect(redactUrl('HTTP://u:p@Host/A')).toBe('HTTP://***@Host/A');
    expect(redactUrl('http:\\\\u:p@host/')).toBe('http:\\\\***@host/');
    // An "@" in the path is the path's; in an unparseable text, everything up to the last "@" goes.
    expect(redactUrl('http://host/users/@me')).toBe('http://host/users/@me');
    expect(redactUrl('http://u:p@host/a@b?c')).toBe('http://***@host/a@b?***');
    expect(redactUrl('http://u:p@host:bad/a@b')).toBe('http://***@b');
  });

  it('leaves no userinfo, query or fragment in any http URL', () => {
    fc.assert(
      fc.property(
        fc.webUrl({ withQueryParameters: true, withFragments: true, authoritySettings: { withUserInfo: true, withPort: true } }),
        (text) => {
          const original = new URL(text);
          const redacted = new URL(redactUrl(text));
          expect(redacted.password).toBe('');
          expect(['', '***']).toContain(redacted.username);
          expect(['', '?***']).toContain(redacted.search);
          expect(['', '#***']).toContain(redacted.hash);
          // What the request goes to is still named.
          expect(redacted.host).toBe(original.host);
          expect(redacted.pathname).toBe(original.pathname);
        },
      ),
    );
  });

  it('never lets a secret in the password, query or fragment through, whatever surrounds it', () => {
    const component = fc.string({ unit: 'binary', maxLength: 12 }).map(encodeURIComponent);
    const host = fc.constantFrom('127.0.0.1', 'localhost', '[::1]', 'proxy.local');
    const port = fc.option(fc.integer({ min: 0, max: 99_999 }), { nil: undefined });
    const path = fc.array(component, { maxLength: 3 }).map((parts) => parts.map((part) => `/${part}`).join(''));
    fc.assert(
      fc.property(component, host, port, path, component, component, fc.boolean(), (user, name, at, route, key, tail, viaQuery) => {
        const authority = `${user}:${SECRET}${tail}@${name}${at === undefined ? '' : `:${at}`}`;
        const text = viaQuery ? `http://${name}${route}?${key}=${SECRET}#${tail}` : `http://${authority}${route}#${SECRET}`;
        // Parsed or cut by its characters (a port over 65535 does not parse), the secret is gone.
        expect(redactUrl(text)).not.toContain(SECRET);
      }),
    );
  });

  it('leaves nothing but the stand-in after a "?" or "#" of any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const redacted = redactUrl(text);
        // Nothing but the stand-in follows a query or fragment mark.
        expect(redacted).not.toMatch(/[?#](?!\*\*\*)/);
      }),
    );
  });
});

describe('redactUrlsIn', () => {
  it('redacts every URL in free text and leaves the rest as written', () => {
    expect(redactUrlsIn('db=http://u:pw@h:1/?t=x')).toBe('db=http://***@h:1/?***');
    expect(redactUrlsIn('curl -fsS http://127.0.0.1/ready?token=a "https://x/y#frag" --retry 3')).toBe(
      'curl -fsS http://127.0.0.1/ready?*** "https://x/y#***" --retry 3',
    );
    expect(redactUrlsIn('--password=plain no url here')).toBe('--password=plain no url here');
  });

  it('lets no secret of a URL through, whatever words surround it', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9=_-]{0,8}$/);
    fc.assert(
      fc.property(word, word, fc.boolean(), (before, after, viaQuery) => {
        const url = viaQuery ? `http://proxy:15020/quit?key=${SECRET}` : `http://admin:${SECRET}@proxy:15020/quit`;
        expect(redactUrlsIn(`${before} ${url} ${after}`)).not.toContain(SECRET);
        expect(redactUrlsIn(`${before}=${url}`)).not.toContain(SECRET);
      }),
    );
  });
});

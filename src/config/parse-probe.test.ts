import { describe, expect, it } from 'vitest';
import { parseProbe } from './parse-probe.ts';

describe('parseProbe', () => {
  it('reads tcp://HOST:PORT, IPv6 in brackets too', () => {
    expect(parseProbe('tcp://127.0.0.1:15000')).toEqual({ ok: true, value: { kind: 'tcp', host: '127.0.0.1', port: 15000 } });
    expect(parseProbe('tcp://[::1]:8080')).toEqual({ ok: true, value: { kind: 'tcp', host: '::1', port: 8080 } });
  });

  it('reads http URLs, with or without a port and a path', () => {
    expect(parseProbe('http://127.0.0.1:15021/healthz/ready')).toEqual({
      ok: true,
      value: { kind: 'http', url: 'http://127.0.0.1:15021/healthz/ready', headers: {}, expectStatus: undefined },
    });
    expect(parseProbe('http://localhost')).toEqual({
      ok: true,
      value: { kind: 'http', url: 'http://localhost/', headers: {}, expectStatus: undefined },
    });
  });

  it('splits exec:CMD like a shell', () => {
    expect(parseProbe(`exec:pg_isready -h '127.0.0.1'`)).toEqual({
      ok: true,
      value: { kind: 'exec', command: ['pg_isready', '-h', '127.0.0.1'] },
    });
  });

  it('takes log:REGEX verbatim, spaces and colons included, and checks that it compiles', () => {
    expect(parseProbe('log:listening on :\\d+ ')).toEqual({ ok: true, value: { kind: 'log', pattern: 'listening on :\\d+ ' } });
    expect(parseProbe('LOG:^ready$')).toEqual({ ok: true, value: { kind: 'log', pattern: '^ready$' } });
  });

  it('takes file:PATH as written', () => {
    expect(parseProbe('file:/tmp/ready')).toEqual({ ok: true, value: { kind: 'file', path: '/tmp/ready' } });
    expect(parseProbe('file:run/ready')).toEqual({ ok: true, value: { kind: 'file', path: 'run/ready' } });
  });

  it.each([
    ['log:', 'log: needs a pattern, e.g. log:listening on port \\d+'],
    ['log:(ready', 'log probe: Invalid regular expression: /(ready/: Unterminated group'],
    ['log:a{2,1}', 'log probe: Invalid regular expression: /a{2,1}/: numbers out of order in {} quantifier'],
    ['file:', 'file: needs a path, e.g. file:/tmp/ready'],
    ['tcp://x:', '"tcp://x:" has no port; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000'],
    ['tcp://x', '"tcp://x" has no port; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000'],
    ['tcp://:80', '"tcp://:80" has no host; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000'],
    ['tcp://x:80/path', '"tcp://x:80/path": a tcp probe takes only HOST:PORT, not "/path"'],
    ['tcp://x:0', 'port "0" is not a number from 1 to 65535'],
    ['tcp://x:65536', 'port "65536" is not a number from 1 to 65535'],
    ['tcp://x:http', 'port "http" is not a number from 1 to 65535'],
    ['http://x:99999/', 'port "99999" is not a number from 1 to 65535'],
    ['http:///ready', '"http:///ready" has no host; use http://HOST:PORT/PATH, e.g. http://127.0.0.1:8080/ready'],
    ['http://u:p@x/', '"http://u:p@x/": credentials in a probe URL are not supported'],
    [
      'https://127.0.0.1/ready',
      'https probes are not supported yet; use http:// (probes reach processes inside the container, usually on 127.0.0.1)',
    ],
    ['exec:', 'exec: needs a command, e.g. exec:pg_isready -h 127.0.0.1'],
    ['exec:  ', 'exec: needs a command, e.g. exec:pg_isready -h 127.0.0.1'],
    [`exec:sh -c 'x`, `exec probe: unbalanced quote: the ' at character 7 is never closed in: sh -c 'x`],
    ['127.0.0.1:80', '"127.0.0.1:80" is not a probe; use tcp://HOST:PORT, http://HOST:PORT/PATH, exec:CMD, log:REGEX or file:PATH'],
    ['', '"" is not a probe; use tcp://HOST:PORT, http://HOST:PORT/PATH, exec:CMD, log:REGEX or file:PATH'],
  ])('rejects %j', (text, message) => {
    expect(parseProbe(text)).toEqual({ ok: false, message });
  });
});

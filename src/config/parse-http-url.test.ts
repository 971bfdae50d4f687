import { describe, expect, it } from 'vitest';
import { parseHttpMethod, parseHttpUrl, parsePort } from './parse-http-url.ts';

// The http:// URLs of probes, hooks and stop endpoints, and the ports of URLs
// and tcp:// probes, as the user's messages say them.

const EXAMPLE = 'use http://HOST:PORT/PATH, e.g. http://127.0.0.1:8080/ready';

describe('parseHttpUrl', () => {
  it.each([
    ['http://127.0.0.1:8080/ready', 'http://127.0.0.1:8080/ready'],
    ['HTTP://Proxy:15021/healthz/ready', 'http://proxy:15021/healthz/ready'],
    ['http://[::1]:8080/ready', 'http://[::1]:8080/ready'],
    ['http://[::1]/ready', 'http://[::1]/ready'],
    ['http://127.0.0.1', 'http://127.0.0.1/'],
  ])('takes %j as %j', (text, url) => {
    expect(parseHttpUrl(text, 'probe')).toEqual({ ok: true, value: url });
  });

  it.each([
    // The scheme left out: no scheme at all, or a host name read as one; neither is a typo of http.
    ['127.0.0.1:8080/ready', `"127.0.0.1:8080/ready" is not an http:// URL; ${EXAMPLE}`],
    ['localhost:8080/ready', `"localhost:8080/ready" is not an http:// URL; ${EXAMPLE}`],
    [' http://127.0.0.1/ready', `" http://127.0.0.1/ready" is not an http:// URL; ${EXAMPLE}`],
    // A probe's other kinds where an http:// URL belongs: no did-you-mean.
    ['tcp://127.0.0.1:15000', `"tcp://127.0.0.1:15000" is not an http:// URL; ${EXAMPLE}`],
    ['grpc://127.0.0.1:9090', `"grpc://127.0.0.1:9090" is not an http:// URL; ${EXAMPLE}`],
    ['htp://127.0.0.1/ready', `"htp://127.0.0.1/ready" is not an http:// URL (did you mean http://127.0.0.1/ready?); ${EXAMPLE}`],
    // The host is what follows http:// itself, not an http:// further on.
    ['http:127.0.0.1/ready', `"http:127.0.0.1/ready" has no host; ${EXAMPLE}`],
    ['http:/ready#http://127.0.0.1/', `"http:/ready#***" has no host; ${EXAMPLE}`],
    ['http:///ready', `"http:///ready" has no host; ${EXAMPLE}`],
    ['http://[]/ready', `"http://[]/ready" has no host; ${EXAMPLE}`],
    ['http://:8080/ready', `"http://:8080/ready" has no host; ${EXAMPLE}`],
    ['http://127.0.0.1:0/ready', 'port "0" is not a number from 1 to 65535'],
    ['http://127.0.0.1:65536/ready', 'port "65536" is not a number from 1 to 65535'],
    ['http://127.0.0.1:80x/ready', 'port "80x" is not a number from 1 to 65535'],
    ['http://a b/ready', `"http://a b/ready" is not a valid URL; ${EXAMPLE}`],
    ['http://[::1]x/ready', `"http://[::1]x/ready" is not a valid URL; ${EXAMPLE}`],
  ])('refuses %j', (text, message) => {
    expect(parseHttpUrl(text, 'probe')).toEqual({ ok: false, message });
  });

  it('names the use in what it refuses', () => {
    expect(parseHttpUrl('http://u:p@127.0.0.1/quit', 'stop endpoint')).toEqual({
      ok: false,
      message: '"http://***@127.0.0.1/quit": credentials in a stop endpoint URL are not supported',
    });
    expect(parseHttpUrl('https://127.0.0.1/drain', 'hook')).toEqual({
      ok: false,
      message: 'https hooks are not supported yet; use http:// (hooks reach processes inside the container, usually on 127.0.0.1)',
    });
  });
});

describe('parsePort', () => {
  it('takes decimal digits from 1 to 65535', () => {
    expect(parsePort('1')).toEqual({ ok: true, value: 1 });
    expect(parsePort('65535')).toEqual({ ok: true, value: 65_535 });
  });

  // Number() would read each of these as a port.
  it.each(['1e3', '0x50', ' 80', '80 ', '+80', '', '65536'])('refuses %j', (text) => {
    expect(parsePort(text)).toEqual({ ok: false, message: `port ${JSON.stringify(text)} is not a number from 1 to 65535` });
  });
});

describe('parseHttpMethod', () => {
  it('takes a method in any case, as its upper-case name', () => {
    expect(parseHttpMethod('post', 'stop endpoint')).toEqual({ ok: true, value: 'POST' });
    expect(parseHttpMethod('FETCH', 'hook')).toEqual({
      ok: false,
      message: '"FETCH" is not an HTTP method for a hook; use GET, POST, PUT, DELETE, PATCH or HEAD',
    });
  });
});

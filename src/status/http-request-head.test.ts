import { describe, expect, it } from 'vitest';
import { readRequestHead } from './http-request-head.ts';

const MAX = 8 * 1024;
const read = (text: string) => readRequestHead(Buffer.from(text, 'latin1'), MAX);

describe('readRequestHead', () => {
  it('reads the method, the target and how long the head is', () => {
    const head = 'GET /readyz?verbose HTTP/1.1\r\nHost: pod:9797\r\nUser-Agent: kube-probe/1.31\r\n\r\n';
    expect(read(`${head}GET /healthz`)).toEqual({
      kind: 'request',
      method: 'GET',
      target: '/readyz?verbose',
      keepAlive: true,
      hasBody: false,
      length: head.length,
    });
  });

  it('keeps an HTTP/1.1 connection open unless it says close, and an HTTP/1.0 one only if it says keep-alive', () => {
    expect(read('GET / HTTP/1.1\r\nConnection: Close\r\n\r\n')).toMatchObject({ keepAlive: false });
    expect(read('GET / HTTP/1.1\r\nconnection: upgrade, close\r\n\r\n')).toMatchObject({ keepAlive: false });
    expect(read('GET / HTTP/1.0\r\n\r\n')).toMatchObject({ keepAlive: false });
    expect(read('GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n')).toMatchObject({ keepAlive: true });
  });

  it('notes a body, which it never reads', () => {
    expect(read('POST /readyz HTTP/1.1\r\nContent-Length: 0\r\n\r\n')).toMatchObject({ hasBody: false });
    expect(read('POST /readyz HTTP/1.1\r\nContent-Length: 12\r\n\r\n')).toMatchObject({ hasBody: true });
    expect(read('POST /readyz HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n')).toMatchObject({ hasBody: true });
    expect(read('POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n')).toEqual({ kind: 'bad', reason: 'malformed content-length' });
  });

  it('waits for the rest of a head that is not all there', () => {
    expect(read('')).toEqual({ kind: 'incomplete' });
    expect(read('GE')).toEqual({ kind: 'incomplete' });
    expect(read('GET /healthz HTTP/1.1\r\nHost: a\r\n')).toEqual({ kind: 'incomplete' });
  });

  it('refuses a head longer than the limit, and bytes that are not HTTP at once', () => {
    expect(read(`GET /${'x'.repeat(MAX)}`)).toEqual({ kind: 'too-large' });
    expect(read(`GET /healthz HTTP/1.1\r\nX: ${'x'.repeat(MAX)}\r\n\r\n`)).toEqual({ kind: 'too-large' });
    // A TLS client hello, with no end of head: refused without waiting for one.
    expect(read('\x16\x03\x01\x02\x00\x01')).toMatchObject({ kind: 'bad' });
    expect(read(' GET / HTTP/1.1')).toMatchObject({ kind: 'bad' });
    expect(read('\x16\x03\x01 not http at all\r\n\r\n')).toEqual({ kind: 'bad', reason: 'malformed request line' });
    expect(read('GET /healthz\r\n\r\n')).toEqual({ kind: 'bad', reason: 'malformed request line' });
    expect(read('GET /a b HTTP/1.1\r\n\r\n')).toEqual({ kind: 'bad', reason: 'malformed request line' });
    expect(read('GET / HTTP/2.0\r\n\r\n')).toEqual({ kind: 'bad', reason: 'malformed request line' });
    expect(read('GET / HTTP/1.1\r\n folded\r\n\r\n')).toEqual({ kind: 'bad', reason: 'malformed header line' });
  });
});

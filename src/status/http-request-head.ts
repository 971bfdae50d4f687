// The head of one HTTP/1.x request, read from the bytes a status-server
// connection has buffered. The server answers GET and HEAD on four paths, so
// this reads only what deciding needs: the request line and the three headers
// that say whether the connection stays open and whether a body follows. It
// never reads a body: a request that carries one is answered and its
// connection closed. Every step is linear in a buffer capped at MAX_HEAD_BYTES.

export type RequestHead =
  /** Not all there yet: wait for more bytes. */
  | { readonly kind: 'incomplete' }
  /** No end of head within the size limit (answered 431). */
  | { readonly kind: 'too-large' }
  /** Not an HTTP/1.x request head (answered 400). */
  | { readonly kind: 'bad'; readonly reason: string }
  | {
      readonly kind: 'request';
      readonly method: string;
      readonly target: string;
      /** The client may send another request on this connection after the answer. */
      readonly keepAlive: boolean;
      /** A body follows the head; it is never read, so the connection closes after the answer. */
      readonly hasBody: boolean;
      /** Bytes the head took, its blank line included: where the next request starts. */
      readonly length: number;
    };

const END_OF_HEAD = Buffer.from('\r\n\r\n');
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([\x21-\x7e]+) HTTP\/1\.([01])$/;
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):(.*)$/;
const INCOMPLETE: RequestHead = { kind: 'incomplete' };
const TOO_LARGE: RequestHead = { kind: 'too-large' };

/** Reads the request head at the start of `buffer`, whose head may take at most `maxHeadBytes`. */
export function readRequestHead(buffer: Buffer, maxHeadBytes: number): RequestHead {
  const end = buffer.subarray(0, maxHeadBytes).indexOf(END_OF_HEAD);
  if (end === -1) {
    // A client that is not speaking HTTP is told at once, not after the head timeout.
    if (!startsLikeARequest(buffer)) return { kind: 'bad', reason: 'not an HTTP request' };
    return buffer.length >= maxHeadBytes ? TOO_LARGE : INCOMPLETE;
  }
  const [requestLine = '', ...headerLines] = buffer.toString('latin1', 0, end).split('\r\n');
  const request = REQUEST_LINE.exec(requestLine);
  if (request === null) return { kind: 'bad', reason: 'malformed request line' };
  const [, method = '', target = '', minor] = request;
  let connection = '';
  let hasBody = false;
  for (const line of headerLines) {
    const header = HEADER_LINE.exec(line);
    if (header === null) return { kind: 'bad', reason: 'malformed header line' };
    const name = header[1]!.toLowerCase();
    const value = header[2]!.trim();
    if (name === 'connection') connection += `,${value.toLowerCase()}`;
    else if (name === 'transfer-encoding') hasBody = true;
    else if (name === 'content-length') {
      if (!/^\d+$/.test(value)) return { kind: 'bad', reason: 'malformed content-length' };
      if (Number(value) > 0) hasBody = true;
    }
  }
  const tokens = connection.split(',').map((token) => token.trim());
  const keepAlive = minor === '1' ? !tokens.includes('close') : tokens.includes('keep-alive');
  return { kind: 'request', method, target, keepAlive, hasBody, length: end + END_OF_HEAD.length };
}

/** The bytes so far could begin a request line: a method token, then a space or more of the token. */
function startsLikeARequest(buffer: Buffer): boolean {
  for (let index = 0; index < buffer.length; index += 1) {
    const byte = buffer[index]!;
    if (byte === 0x20) return index > 0;
    if (byte < 0x21 || byte > 0x7e) return false;
    if (index >= 32) return false;
  }
  return true;
}

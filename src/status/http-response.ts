import type { StatusResponse } from './status-routes.ts';

// One status-server answer as the bytes of an HTTP/1.1 response.

const REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface ResponseFraming {
  /** HEAD: the headers GET would have, no body. */
  readonly omitBody: boolean;
  /** Whether the connection stays open for another request. */
  readonly keepAlive: boolean;
}

export function formatHttpResponse(answer: StatusResponse, framing: ResponseFraming): Buffer {
  const headers: Record<string, string> = {
    'content-type': answer.contentType,
    'content-length': String(Buffer.byteLength(answer.body)),
    'cache-control': 'no-store',
    connection: framing.keepAlive ? 'keep-alive' : 'close',
    ...answer.headers,
  };
  let head = `HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? 'Status'}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  head += '\r\n';
  return Buffer.from(framing.omitBody ? head : head + answer.body, 'utf8');
}

/** An answer for a request that could not be read; the connection closes after it. */
export function rejection(status: 400 | 431, reason: string): StatusResponse {
  return { status, contentType: 'text/plain; charset=utf-8', body: `${reason}\n` };
}

import { request } from 'node:http';
import type { StatusDocument } from '../../src/status/status-json.ts';

// A plain HTTP client for the status server, one connection per request, for
// the tests that read what sidecar-init serves.

export interface Answer {
  readonly status: number;
  readonly body: string;
}

export function get(port: number, path: string, method = 'GET', host = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host, port, path, method, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** GET /status, parsed. */
export async function getStatus(port: number): Promise<StatusDocument> {
  return JSON.parse((await get(port, '/status')).body) as StatusDocument;
}

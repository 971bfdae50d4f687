import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Agent, request } from 'node:https';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { type RunningSupervisor, startSupervisor } from './supervisor.ts';

// `sidecar-init webhook` for real: a certificate made here with the openssl
// CLI, the webhook started as its own process, AdmissionReviews POSTed over
// HTTPS with that certificate as the only trusted CA.

export interface Certificate {
  readonly certFile: string;
  readonly keyFile: string;
  readonly ca: Buffer;
}

/** A self-signed certificate for 127.0.0.1 and localhost, valid for a day. */
export function makeCertificate(dir: string): Certificate {
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=sidecar-init-webhook',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'pipe' },
  );
  return { certFile, keyFile, ca: readFileSync(certFile) };
}

export interface RunningWebhook {
  readonly supervisor: RunningSupervisor;
  readonly port: number;
}

/** Starts `sidecar-init webhook` on a free loopback port; resolves once it listens. */
/** `sidecar-init webhook` with this certificate and install image, then `extra`. */
export function webhookArgs(certificate: Certificate, image: string, ...extra: readonly string[]): string[] {
  return ['webhook', '--cert', certificate.certFile, '--key', certificate.keyFile, '--image', image, ...extra];
}

export async function startWebhook(
  certificate: Certificate,
  image: string,
  wrapper?: readonly string[],
  flags: readonly string[] = [],
): Promise<RunningWebhook> {
  const supervisor = startSupervisor(
    webhookArgs(certificate, image, '--addr', '127.0.0.1:0', ...flags),
    wrapper === undefined ? {} : { wrapper },
  );
  const listening = await Promise.race([
    supervisor.waitForLog((line) => line.event === 'listening'),
    supervisor.exited.then((exit) => {
      throw new Error(`the webhook exited (${exit.code}) before listening: ${supervisor.stderr()}`);
    }),
  ]);
  return { supervisor, port: Number(listening.port) };
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

export interface PostOptions {
  /** Keeps connections alive between posts, as the API server does. */
  readonly agent?: Agent;
  /** The address to send from (another of 127.0.0.0/8 is another client address). */
  readonly localAddress?: string;
}

export function post(
  port: number,
  ca: Buffer,
  body: string | Buffer,
  path = '/mutate',
  method = 'POST',
  options: PostOptions = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        ca,
        ...options,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * A POST that declares a body of `declaredBytes` but sends only its first KiB,
 * then waits for the answer: how an oversized review is refused, without the
 * client still writing when the server closes the connection.
 */
export function postOversized(port: number, ca: Buffer, declaredBytes: number): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mutate',
        method: 'POST',
        ca,
        headers: { 'content-type': 'application/json', 'content-length': declaredBytes },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
          outgoing.destroy();
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.write(Buffer.alloc(1024, 0x20));
  });
}

/** The AdmissionReview the API server sends for a pod being created. */
export function podReview(pod: unknown, namespace = 'default'): { uid: string; body: string } {
  const uid = randomUUID();
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      namespace,
      operation: 'CREATE',
      userInfo: { username: 'system:serviceaccount:kube-system:job-controller' },
      object: { apiVersion: 'v1', kind: 'Pod', ...(pod as object) },
      oldObject: null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    },
  };
  return { uid, body: JSON.stringify(review) };
}

export interface AdmissionAnswer {
  readonly uid: string;
  readonly allowed: boolean;
  readonly patchType?: string;
  readonly patch?: string;
  readonly warnings?: string[];
  readonly status?: { code: number; message: string };
}

/** The response of a review, with its patch decoded (empty when there is none). */
export function readAnswer(answer: HttpAnswer): { response: AdmissionAnswer; patch: unknown[] } {
  const review = JSON.parse(answer.body) as { apiVersion: string; kind: string; response: AdmissionAnswer };
  if (review.apiVersion !== 'admission.k8s.io/v1' || review.kind !== 'AdmissionReview') throw new Error(`not a review: ${answer.body}`);
  const { response } = review;
  const patch = response.patch === undefined ? [] : (JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as unknown[]);
  return { response, patch };
}

/** A plain TCP connection to the webhook that never sends a byte (no TLS), from `localAddress`; resolves once connected. */
export function openSilentSocket(port: number, localAddress = '127.0.0.1'): Promise<SilentSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    const closed = new Promise<void>((resolveClose) => socket.once('close', () => resolveClose()));
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, closed, isClosed: () => socket.destroyed }));
    socket.once('close', () => reject(new Error(`connection from ${localAddress} closed before it connected`)));
  });
}

export interface SilentSocket {
  readonly socket: Socket;
  /** Resolves when the webhook (or the test) closed it. */
  readonly closed: Promise<void>;
  readonly isClosed: () => boolean;
}

/** The resident set of a process, from /proc/PID/status, in MiB. */
export function residentMiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

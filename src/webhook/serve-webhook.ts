import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { LogLevel } from '../plan/plan.ts';
import { createLogger, flushLog } from '../log/logger.ts';
import { handleReview } from './handle-review.ts';
import { limitConnections, type WebhookConnectionLimits } from './limit-connections.ts';
import { rememberVerdicts } from './remember-verdicts.ts';
import type { InstallMode } from './install-mode.ts';
import type { CheckArgs } from './plan-injection.ts';

// `sidecar-init webhook`: the mutating admission webhook, served over HTTPS
// (the API server calls webhooks over TLS only). Loaded by this subcommand
// alone, so a supervisor's start never evaluates node:https.

/** What `sidecar-init webhook` was given on its command line. */
export interface WebhookSettings {
  readonly host: string;
  readonly port: number;
  readonly certFile: string;
  readonly keyFile: string;
  /** The sidecar-init image the install init container runs. */
  readonly image: string;
  /** For pods without the sidecar-init.io/install annotation. */
  readonly installMode: InstallMode;
  /** The image mounted as an image volume in image-volume mode; without it, only copy is offered. */
  readonly volumeImage?: string;
  readonly logLevel: LogLevel;
  /**
   * How `sidecar-init validate` judges a command line, for the flags the
   * webhook writes; loaded when the webhook starts, so that parsing argv
   * (every start of sidecar-init) never evaluates the config loader.
   */
  readonly loadCheckArgs: () => Promise<CheckArgs>;
}

interface WebhookOptions extends Omit<WebhookSettings, 'loadCheckArgs'> {
  readonly checkArgs: CheckArgs;
  readonly logger: Logger;
  /** Set on SIGTERM: answers close their connection, so keep-alive clients cannot hold the exit. */
  readonly stopping: { value: boolean };
}

export const WEBHOOK_SERVER_LIMITS = {
  /**
   * Open connections, all together. The API server opens one per review in
   * flight and keeps them alive; a burst of a few hundred pods fits. About
   * 50 KiB each: 512 cost some 25 MiB of the Deployment's 128 MiB.
   */
  maxConnections: 512,
  /** From one address (the API server is one per replica): one pod can take at most half of them. */
  maxConnectionsPerAddress: 256,
  /** From the TCP connection to a completed TLS handshake; the API server's takes milliseconds. */
  handshakeTimeoutMs: 5_000,
  /** From the handshake to a complete request head: the API server sends its request at once. */
  headTimeoutMs: 5_000,
  /** How often those two deadlines are checked. */
  sweepEveryMs: 1_000,
  /** A kept-alive connection with no request, after an answer (Node's default, made explicit). */
  idleTimeoutMs: 5_000,
  /** The API server's own timeout for a webhook is at most 30 s; a client slower than this is not the API server. */
  requestTimeoutMs: 30_000,
  /** A review is a pod spec and some metadata; the API server caps requests at 3 MiB, a pod is far below. */
  maxBodyBytes: 3 * 1024 * 1024,
} as const satisfies WebhookConnectionLimits & Record<string, number>;

/** How often Node's HTTP server checks the head and request deadlines (by default every 30 s, so a deadline meant little). */
const DEADLINE_CHECK_EVERY_MS = 1_000;
const MAX_BODY_BYTES = WEBHOOK_SERVER_LIMITS.maxBodyBytes;
/** cert-manager renews the Secret in place; the kubelet updates the mounted files within about a minute. */
const CERT_CHECK_INTERVAL_MS = 30_000;
const LOG_FLUSH_DEADLINE_MS = 500;
export const REVIEW_PATH = '/mutate';
export const HEALTH_PATH = '/healthz';

/** Serves until SIGTERM or SIGINT, then finishes the reviews in flight; resolves with the exit code. */
export async function serveWebhook(settings: WebhookSettings): Promise<number> {
  const logger = createLogger(settings.logLevel, 'json');
  const { check: checkArgs } = rememberVerdicts(await settings.loadCheckArgs());
  const code = await serve({ ...settings, checkArgs, logger, stopping: { value: false } });
  await flushLog(LOG_FLUSH_DEADLINE_MS);
  return code;
}

async function serve(options: WebhookOptions): Promise<number> {
  const { logger } = options;
  // Subscribed first: whoever reads the listening line may send SIGTERM at
  // once, and a signal without a listener would kill the process outright.
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  let tls: Tls;
  try {
    tls = readTls(options.certFile, options.keyFile);
  } catch (error) {
    logger.fatal({ event: 'webhook-failed', err: error }, `cannot read the TLS certificate or key: ${(error as Error).message}`);
    return 2;
  }
  const limits = WEBHOOK_SERVER_LIMITS;
  const server = createServer(
    {
      cert: tls.cert,
      key: tls.key,
      minVersion: 'TLSv1.2',
      // Node's own handshake timeout restarts with every byte; limitConnections' deadline does not.
      handshakeTimeout: limits.handshakeTimeoutMs,
      headersTimeout: limits.headTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.idleTimeoutMs,
      connectionsCheckingInterval: DEADLINE_CHECK_EVERY_MS,
    },
    (request, response) => respond(request, response, options),
  );
  const connections = limitConnections(server, limits);
  const listening = await listen(server, options.host, options.port).catch((error: unknown) => error as Error);
  if (listening instanceof Error) {
    logger.fatal({ event: 'webhook-failed', err: listening }, `cannot listen on ${options.host}:${options.port}: ${listening.message}`);
    return 1;
  }
  logger.info(
    {
      event: 'listening',
      host: listening.address,
      port: listening.port,
      image: options.image,
      installMode: options.installMode,
      volumeImage: options.volumeImage,
    },
    'webhook listening',
  );
  const reload = setInterval(() => {
    const renewed = renewedTls(options.certFile, options.keyFile, tls);
    if (renewed === undefined) return;
    try {
      server.setSecureContext({ cert: renewed.cert, key: renewed.key });
    } catch (error) {
      // A certificate that does not fit its key (read between the two writes): the next check reads both again.
      logger.warn({ event: 'certificate-reload-failed', err: error }, 'the renewed TLS certificate did not load; keeping the previous one');
      return;
    }
    tls = renewed;
    logger.info({ event: 'certificate-reloaded' }, 'reloaded the TLS certificate and key');
  }, CERT_CHECK_INTERVAL_MS);
  reload.unref();
  const signal = await stopSignal;
  logger.info({ event: 'stopping', signal }, 'webhook stopping after the reviews in flight');
  clearInterval(reload);
  options.stopping.value = true;
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // Also those still in their handshake or yet to send a request, which Node's call leaves open.
    connections.closeIdle();
  });
  return 0;
}

function respond(request: IncomingMessage, response: ServerResponse, options: WebhookOptions): void {
  const path = (request.url ?? '').split('?')[0];
  if (path === HEALTH_PATH) return void send(response, 200, 'ok\n', 'text/plain');
  if (path !== REVIEW_PATH) return void send(response, 404, `not found; AdmissionReviews go to POST ${REVIEW_PATH}\n`, 'text/plain');
  if (request.method !== 'POST') return void send(response, 405, `${REVIEW_PATH} takes POST\n`, 'text/plain', { allow: 'POST' });
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return void tooLarge(request, response);
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return void tooLarge(request, response);
    chunks.push(chunk);
  });
  request.on('end', () => {
    if (response.headersSent) return;
    const outcome = handleReview(Buffer.concat(chunks).toString('utf8'), options);
    const fields = { event: 'review', decision: outcome.decision, pod: outcome.pod, detail: outcome.detail };
    if (outcome.decision === 'malformed' || outcome.decision === 'denied') options.logger.warn(fields, outcome.decision);
    else if (outcome.decision !== 'not-a-pod-create') options.logger.info(fields, outcome.decision);
    const headers: Record<string, string> = options.stopping.value ? { connection: 'close' } : {};
    send(response, outcome.status, outcome.body, outcome.status === 200 ? 'application/json' : 'text/plain', headers);
  });
  request.on('error', () => response.destroy());
}

function tooLarge(request: IncomingMessage, response: ServerResponse): void {
  if (!response.headersSent)
    send(response, 413, `an AdmissionReview is at most ${MAX_BODY_BYTES} bytes\n`, 'text/plain', { connection: 'close' });
  request.resume();
}

function send(response: ServerResponse, status: number, body: string, type: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
  response.end(body);
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      // A later error of the listening socket must not end the process; clients see their own.
      server.on('error', () => {});
      resolve(server.address() as AddressInfo);
    });
  });
}

interface Tls {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly stamp: string;
}

function readTls(certFile: string, keyFile: string): Tls {
  return { cert: readFileSync(certFile), key: readFileSync(keyFile), stamp: stampOf(certFile, keyFile) };
}

/** The files again when they changed since `current` (a renewal); undefined when not, or when they cannot be read now. */
function renewedTls(certFile: string, keyFile: string, current: Tls): Tls | undefined {
  try {
    if (stampOf(certFile, keyFile) === current.stamp) return undefined;
    return readTls(certFile, keyFile);
  } catch {
    // Mid-renewal (the kubelet swaps a symlink): the next check reads both.
    return undefined;
  }
}

function stampOf(certFile: string, keyFile: string): string {
  const cert = statSync(certFile);
  const key = statSync(keyFile);
  return `${cert.mtimeMs}:${cert.size}:${key.mtimeMs}:${key.size}`;
}

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { checkInjectedArgs } from '../src/cli/check-injected-args.ts';
import { handleReview } from '../src/webhook/handle-review.ts';
import { rememberVerdicts } from '../src/webhook/remember-verdicts.ts';
import { makeCertificate, podReview, post } from '../test/support/webhook.ts';
import { median, NODE, SIDECAR_INIT, SIDECAR_INIT_BINARY } from './measure.ts';

// The injection webhook under the API server's load: CONCURRENCY pod reviews
// sent at once (a Job with that many parallel pods, a Deployment scaled up),
// over HTTPS connections kept alive as the API server keeps its connections
// to a webhook (the warm-up round opens them: a TLS handshake costs more than
// a review, and 200 at once on a 2-core machine take most of a second even for
// a bare server), the pod from examples/k8s/webhook/job-istio-before-injection.yaml. Each
// review's time from send to the last byte of its answer, median and p95 over
// every review of ROUNDS rounds after the warm-up round. Beside it, in the same run, a bare Node HTTPS
// server that answers every review "allowed" with no patch: the part of the
// time that is TLS and HTTP, not sidecar-init.

const CONCURRENCY = 200;
const ROUNDS = 3;
const START_TIMEOUT_MS = 30_000;
/** Reviews handled in this process, without HTTP, for the webhook's own cost per review. */
const IN_PROCESS_REVIEWS = 2_000;
const LISTENING = /"event":"listening","host":"[^"]*","port":(\d+)/;

const BARE_SERVER = `
const { createServer } = require('node:https');
const { readFileSync } = require('node:fs');
const [cert, key] = process.argv.slice(1);
const server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.stderr.write(JSON.stringify({ event: 'listening', host: '127.0.0.1', port: server.address().port }) + '\\n'));
process.on('SIGTERM', () => process.exit(0));
`;

interface Server {
  readonly name: string;
  readonly argv: readonly string[];
}

/** One review on the agent's kept-alive connections: the time from sending it to the last byte of its answer. */
async function timedReview(port: number, agent: Agent, ca: Buffer, body: string): Promise<number> {
  const started = performance.now();
  const answer = await post(port, ca, body, '/mutate', 'POST', { agent });
  if (answer.status !== 200) throw new Error(`status ${answer.status}`);
  return performance.now() - started;
}

async function measure(server: Server, pod: unknown, ca: Buffer): Promise<number[]> {
  const child = spawn(server.argv[0]!, server.argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      log += chunk;
      const match = LISTENING.exec(log);
      if (match !== null) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${server.name} exited ${code}: ${log}`)));
    setTimeout(
      () => reject(new Error(`${server.name} did not log its port within ${START_TIMEOUT_MS} ms: ${log}`)),
      START_TIMEOUT_MS,
    ).unref();
  });
  const times: number[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca });
  try {
    for (let round = 0; round <= ROUNDS; round += 1) {
      const bodies = Array.from({ length: CONCURRENCY }, () => podReview(pod).body);
      const answered = await Promise.all(bodies.map((body) => timedReview(port, agent, ca, body)));
      // Round 0 opens the connections and warms the server up (code loaded).
      if (round > 0) times.push(...answered);
    }
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  return times;
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'sidecar-init-bench-webhook-'));
  try {
    // The certificate the webhook's tests make: self-signed, for 127.0.0.1.
    const { certFile: cert, keyFile: key, ca } = makeCertificate(work);
    const file = new URL('../examples/k8s/webhook/job-istio-before-injection.yaml', import.meta.url);
    const job = parseAllDocuments(readFileSync(file, 'utf8'))[0]?.toJS() as { spec: { template: unknown } };
    const flags = [
      'webhook',
      '--addr',
      '127.0.0.1:0',
      '--cert',
      cert,
      '--key',
      key,
      '--image',
      'registry.example.com/tools/sidecar-init:0.1.0',
    ];
    const servers: Server[] = [
      { name: 'bare node https (allowed, no patch)', argv: [NODE, '-e', BARE_SERVER, cert, key] },
      { name: 'sidecar-init webhook (bin/ on Node)', argv: [NODE, SIDECAR_INIT, ...flags] },
      ...(SIDECAR_INIT_BINARY === undefined ? [] : [{ name: 'sidecar-init webhook (executable)', argv: [SIDECAR_INIT_BINARY, ...flags] }]),
    ];
    console.log(`\nwebhook: ${CONCURRENCY} pod reviews at once over HTTPS, kept-alive connections (ms per review, ${ROUNDS} rounds)`);
    const { body } = podReview(job.spec.template);
    const options = { image: 'registry.example.com/tools/sidecar-init:0.1.0', checkArgs: rememberVerdicts(checkInjectedArgs).check };
    for (let index = 0; index < IN_PROCESS_REVIEWS / 10; index += 1) handleReview(body, options);
    const started = performance.now();
    for (let index = 0; index < IN_PROCESS_REVIEWS; index += 1) handleReview(body, options);
    const perReview = (performance.now() - started) / IN_PROCESS_REVIEWS;
    console.log(`  ${"the webhook's own work (in process)".padEnd(40)} ${perReview.toFixed(2).padStart(6)} ms per review`);
    for (const server of servers) {
      const times = await measure(server, job.spec.template, ca);
      const line = `median ${median(times).toFixed(1).padStart(6)}   p95 ${percentile(times, 0.95).toFixed(1).padStart(6)}   max ${Math.max(
        ...times,
      )
        .toFixed(1)
        .padStart(6)}`;
      console.log(`  ${server.name.padEnd(40)} ${line}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

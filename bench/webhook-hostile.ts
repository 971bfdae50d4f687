import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { parseAllDocuments } from 'yaml';
import { makeCertificate, podReview, post, residentMiB } from '../test/support/webhook.ts';
import { NODE, SIDECAR_INIT } from './measure.ts';

// The injection webhook against what a hostile pod's author or client can
// send it, each in a webhook process of its own, its RSS read from
// /proc/PID/status (the Deployment's limit is 128 MiB; past it the webhook is
// killed and failurePolicy: Ignore admits pods uninjected):
// - verdicts: BIG_REVIEWS reviews, 4 at a time, each with a distinct command
//   line of about a megabyte, as the verdict cache once kept them all;
// - huge pod: one review of a pod with HUGE_CONTAINERS proxy containers, and
//   beside it reviews one after another: the longest any of them waited;
// - idle TLS: IDLE_CONNECTIONS TLS handshakes completed from one address that
//   then send nothing: how many stay open, and the RSS;
// - silent TCP: a connection that never starts TLS: how long it is held (the
//   wait is cut at SILENT_WAIT_MS).
// $BENCH_WEBHOOK_BASELINE, another tree's bin/sidecar-init (say, main's, after
// npm run build there), is measured beside this one in the same run.
//
//   node bench/webhook-hostile.ts   (or npm run bench -- --only webhook-hostile)

const BIG_REVIEWS = 120;
const BIG_WORD_BYTES = 120 * 1024;
const BIG_WORDS = 8;
const HUGE_CONTAINERS = 65_000;
const IDLE_CONNECTIONS = 2_000;
const IDLE_FROM = '127.0.0.2';
const IDLE_BATCH = 200;
const SILENT_WAIT_MS = 130_000;
const START_TIMEOUT_MS = 30_000;
const LISTENING = /"event":"listening","host":"[^"]*","port":(\d+)/;
const IMAGE = 'registry.example.com/tools/sidecar-init:0.1.0';

interface Webhook {
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

async function startWebhook(bin: string, cert: string, key: string): Promise<Webhook> {
  const child = spawn(NODE, [bin, 'webhook', '--addr', '127.0.0.1:0', '--cert', cert, '--key', key, '--image', IMAGE], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log: string | undefined = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (log === undefined) return;
      log += chunk;
      const match = LISTENING.exec(log);
      if (match === null) return;
      resolve(Number(match[1]));
      // The review lines that follow are read and dropped.
      log = undefined;
    });
    child.once('exit', (code) => reject(new Error(`the webhook exited ${code}: ${log}`)));
    setTimeout(() => reject(new Error(`the webhook did not log its port within ${START_TIMEOUT_MS} ms: ${log}`)), START_TIMEOUT_MS).unref();
  });
  return {
    port,
    pid: child.pid ?? 0,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** One review on the agent's kept-alive connections: the answer's body. */
async function postReview(port: number, agent: Agent, ca: Buffer, body: string): Promise<string> {
  return (await post(port, ca, body, '/mutate', 'POST', { agent })).body;
}

interface Pod {
  metadata: { annotations: Record<string, string> };
  spec: { containers: Record<string, unknown>[] };
}

async function verdicts(webhook: Webhook, pod: Pod, ca: Buffer): Promise<string> {
  const agent = new Agent({ keepAlive: true, maxSockets: 4, ca });
  const idle = residentMiB(webhook.pid);
  const word = 'x'.repeat(BIG_WORD_BYTES);
  for (let round = 0; round < BIG_REVIEWS / 4; round += 1) {
    await Promise.all(
      Array.from({ length: 4 }, (_, index) => {
        const big = structuredClone(pod);
        big.spec.containers[0] = {
          ...big.spec.containers[0],
          command: ['/app/report-job', ...Array(BIG_WORDS).fill(word), `${round}-${index}`],
        };
        // Denied (the flags are wrong): the answers are small; what a verdict cache keeps is the command line's.
        big.metadata.annotations['sidecar-init.io/args'] = '--grace 20x';
        return postReview(webhook.port, agent, ca, podReview(big).body);
      }),
    );
  }
  const after = residentMiB(webhook.pid);
  agent.destroy();
  return `RSS ${idle.toFixed(0)} → ${after.toFixed(0)} MiB after ${BIG_REVIEWS} reviews of ${((BIG_WORDS * BIG_WORD_BYTES) / 1024 / 1024).toFixed(2)} MiB command lines`;
}

async function hugePod(webhook: Webhook, pod: Pod, ca: Buffer): Promise<string> {
  const agent = new Agent({ keepAlive: true, maxSockets: 2, ca });
  const legitimate = podReview(pod).body;
  await postReview(webhook.port, agent, ca, legitimate);
  const huge = structuredClone(pod);
  huge.spec.containers.push(...Array.from({ length: HUGE_CONTAINERS }, () => ({ name: 'envoy' })));
  const started = performance.now();
  let hugeMs: number | undefined;
  const pending = postReview(webhook.port, agent, ca, podReview(huge).body).then(() => {
    hugeMs = performance.now() - started;
  });
  let longest = 0;
  while (hugeMs === undefined) {
    const sent = performance.now();
    await postReview(webhook.port, agent, ca, legitimate);
    longest = Math.max(longest, performance.now() - sent);
  }
  await pending;
  agent.destroy();
  return `the ${HUGE_CONTAINERS}-container review answered in ${hugeMs.toFixed(0)} ms; a review beside it waited at most ${longest.toFixed(0)} ms`;
}

async function idleTls(webhook: Webhook, ca: Buffer): Promise<string> {
  const before = residentMiB(webhook.pid);
  const sockets: TLSSocket[] = [];
  let completed = 0;
  // In batches, so that the handshakes are the server's work, not its backlog's.
  for (let batch = 0; batch < IDLE_CONNECTIONS / IDLE_BATCH; batch += 1) {
    const handshakes = await Promise.all(
      Array.from(
        { length: IDLE_BATCH },
        () =>
          new Promise<boolean>((resolve) => {
            const tcp = connect({ host: '127.0.0.1', port: webhook.port, localAddress: IDLE_FROM });
            const socket = connectTls({ socket: tcp, host: '127.0.0.1', ca });
            sockets.push(socket);
            socket.once('secureConnect', () => resolve(true));
            socket.once('error', () => resolve(false));
            socket.once('close', () => resolve(false));
          }),
      ),
    );
    completed += handshakes.filter(Boolean).length;
  }
  // What the webhook holds once every handshake has ended one way or the other.
  const open = sockets.filter((socket) => !socket.destroyed).length;
  const after = residentMiB(webhook.pid);
  for (const socket of sockets) socket.destroy();
  return `${completed} of ${IDLE_CONNECTIONS} handshakes completed, ${open} open at the end; RSS ${before.toFixed(0)} → ${after.toFixed(0)} MiB`;
}

async function silentTcp(webhook: Webhook): Promise<string> {
  const started = performance.now();
  const socket = connect({ host: '127.0.0.1', port: webhook.port });
  socket.on('error', () => {});
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), SILENT_WAIT_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  socket.destroy();
  const seconds = (performance.now() - started) / 1000;
  return closed ? `closed after ${seconds.toFixed(1)} s` : `still open after ${seconds.toFixed(0)} s`;
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'sidecar-init-bench-webhook-hostile-'));
  try {
    const { certFile, keyFile, ca } = makeCertificate(work);
    const file = new URL('../examples/k8s/webhook/job-istio-before-injection.yaml', import.meta.url);
    const job = parseAllDocuments(readFileSync(file, 'utf8'))[0]?.toJS() as { spec: { template: Pod } };
    const pod = job.spec.template;
    const bins = [
      { name: 'sidecar-init webhook (bin/)', bin: SIDECAR_INIT },
      ...(process.env.BENCH_WEBHOOK_BASELINE ? [{ name: 'baseline', bin: process.env.BENCH_WEBHOOK_BASELINE }] : []),
    ];
    console.log('\nwebhook under hostile input (each in a fresh webhook process)');
    for (const [scenario, measure] of [
      ['verdicts', (webhook: Webhook) => verdicts(webhook, pod, ca)],
      ['huge pod', (webhook: Webhook) => hugePod(webhook, pod, ca)],
      ['idle TLS', (webhook: Webhook) => idleTls(webhook, ca)],
      ['silent TCP', (webhook: Webhook) => silentTcp(webhook)],
    ] as const) {
      for (const { name, bin } of bins) {
        const webhook = await startWebhook(bin, certFile, keyFile);
        try {
          console.log(`  ${scenario.padEnd(11)} ${name.padEnd(28)} ${await measure(webhook)}`);
        } finally {
          await webhook.stop();
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) await run();

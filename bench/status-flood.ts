import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { NODE, SIDECAR_INIT } from './measure.ts';

// The status server under the floods a hostile neighbour can send it: what
// sidecar-init's resident memory grows to, how long a fresh /healthz takes
// (the kubelet's liveness probe, 1 s timeout by default), how late a signal is
// handled, and how much CPU the flood costs PID 1; and the same for node:http
// hardened as far as it goes (bench/node-http-status.ts), which is why the
// status server is built on node:net. One run per flood; the figures are
// wide-margin liveness facts, not fine timings.

const FLOOD = fileURLToPath(new URL('../test/fixtures/status-flood.mjs', import.meta.url));
const NODE_HTTP_SERVER = fileURLToPath(new URL('./node-http-status.ts', import.meta.url));
const SETTLE_MS = 1_000;
/** How long each flood runs once in effect, while /healthz, a signal and RSS are measured. */
const WINDOW_MS = 6_000;
const HEALTHZ_EVERY_MS = 500;
const HEALTHZ_GIVE_UP_MS = 15_000;
const FLOOD_START_GIVE_UP_MS = 60_000;
const AFTER_MS = 3_000;
const SIGNAL_GIVE_UP_MS = 30_000;
const SIGNAL_EVERY_MS = 1_000;
/** sidecar-init's line for a SIGHUP passed on to its app (`forwarded`), or the comparison server's (`signal`). */
const isSighup = (line: string) => (line.includes('"event":"forwarded"') || line.includes('"event":"signal"')) && line.includes('SIGHUP');

interface Flood {
  readonly name: string;
  readonly argv: readonly string[];
}

const FLOODS: readonly Flood[] = [
  { name: '64 conns x 50,000 pipelined /status, unread', argv: ['pipeline', '64', '50000'] },
  { name: '256 conns pipelining /status, reading every answer', argv: ['eager', '256', '400'] },
  { name: '64 idle conns, reopened', argv: ['idle', '64'] },
  { name: '200 byte-by-byte conns, reopened', argv: ['trickle', '200'] },
  { name: '300 idle conns, reopened', argv: ['idle', '300'] },
  { name: '1,000 idle conns, reopened', argv: ['idle', '1000'] },
];

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) / 1024;
}

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Milliseconds until /healthz answered 200 on a fresh connection, or undefined if it did not within the give-up time. */
function healthz(port: number): Promise<number | undefined> {
  const started = performance.now();
  return new Promise((resolve) => {
    const outgoing = request({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode === 200 ? performance.now() - started : undefined));
    });
    outgoing.setTimeout(HEALTHZ_GIVE_UP_MS, () => outgoing.destroy());
    outgoing.on('error', () => resolve(undefined));
    outgoing.end();
  });
}

/** The first line of the log that matches, waiting for it up to SIGNAL_GIVE_UP_MS. */
async function logLine(log: () => string, match: (line: string) => boolean): Promise<string | undefined> {
  const deadline = Date.now() + SIGNAL_GIVE_UP_MS;
  for (;;) {
    const line = log().split('\n').find(match);
    if (line !== undefined || Date.now() > deadline) return line;
    await delay(50);
  }
}

interface Server {
  readonly name: string;
  readonly argv: readonly string[];
}

const APP = ['/bin/sh', '-c', 'trap "" HUP; while :; do sleep 1; done'];
const SERVERS: readonly Server[] = [
  { name: 'sidecar-init', argv: [NODE, SIDECAR_INIT, '--status-addr', '127.0.0.1:0', '--', ...APP] },
  // What the status server was built on before, hardened as far as it goes (see the file).
  { name: 'node:http, hardened', argv: [NODE, NODE_HTTP_SERVER] },
];

interface Result {
  readonly idle: number;
  readonly peak: number;
  readonly after: number;
  readonly latencies: readonly (number | undefined)[];
  /** The latest a SIGHUP was handled; NaN if one never was. */
  readonly signalMs: number;
  readonly cpu: number;
}

async function measure(server: Server, flood: Flood): Promise<Result | string> {
  const supervisor = spawn(server.argv[0]!, server.argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  const pid = supervisor.pid!;
  let log = '';
  supervisor.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    log += chunk;
  });
  let flooder: ReturnType<typeof spawn> | undefined;
  try {
    await delay(SETTLE_MS);
    const port = Number(/"event":"status-server-listening","host":"[^"]*","port":(\d+)/.exec(log)?.[1] ?? 0);
    if (port === 0) return `no status server port in the log:\n${log}`;
    const idle = rssMiB(pid);
    flooder = spawn(NODE, [FLOOD, flood.argv[0]!, '127.0.0.1', String(port), ...flood.argv.slice(1)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const cpuBefore = cpuSeconds(pid);
    let peak = rssMiB(pid);
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(pid));
    }, 100);
    const inEffect = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), FLOOD_START_GIVE_UP_MS);
      flooder!.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        if (!chunk.includes('flooding')) return;
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!inEffect) {
      clearInterval(sampler);
      return 'the flood never took effect';
    }
    const latencies: Promise<number | undefined>[] = [];
    const signalsSent: number[] = [];
    for (let at = 0; at < WINDOW_MS; at += HEALTHZ_EVERY_MS) {
      latencies.push(healthz(port));
      if (at % SIGNAL_EVERY_MS === 0) {
        signalsSent.push(Date.now());
        supervisor.kill('SIGHUP');
      }
      await delay(HEALTHZ_EVERY_MS);
    }
    const cpu = cpuSeconds(pid) - cpuBefore;
    const lastSent = signalsSent.at(-1)!;
    await logLine(
      () => log,
      (line) => isSighup(line) && Date.parse(JSON.parse(line).time) >= lastSent,
    );
    clearInterval(sampler);
    const handled = log
      .split('\n')
      .filter(isSighup)
      .map((line) => Date.parse(JSON.parse(line).time));
    // Signals sent while one is pending are handled as one: each counts until the first handling after it.
    const signalMs = Math.max(...signalsSent.map((sent) => (handled.find((at) => at >= sent) ?? Number.NaN) - sent));
    flooder.kill('SIGTERM');
    const settled = await Promise.all(latencies);
    await delay(AFTER_MS);
    return { idle, peak, after: rssMiB(pid), latencies: settled, signalMs, cpu };
  } finally {
    flooder?.kill('SIGKILL');
    supervisor.kill('SIGTERM');
    await new Promise((resolve) => supervisor.once('exit', resolve));
  }
}

export async function run(): Promise<void> {
  console.log(
    '\nstatus server under a flood (one run each; RSS of the server process, /healthz on a fresh connection every 0.5 s, SIGHUP every 1 s)',
  );
  const columns = ['RSS idle'.padStart(9), 'peak'.padStart(15), 'after'.padStart(9), '/healthz max'.padStart(13), 'failed'.padStart(7)];
  console.log(`  ${'flood / server'.padEnd(46)} ${columns.join(' ')} ${'SIGHUP'.padStart(8)} ${'CPU'.padStart(7)}`);
  for (const flood of FLOODS) {
    console.log(`  ${flood.name}`);
    for (const server of SERVERS) {
      const result = await measure(server, flood);
      const name = `    ${server.name}`.padEnd(46);
      if (typeof result === 'string') {
        console.log(`  ${name} ${result}`);
        continue;
      }
      const answered = result.latencies.filter((latency): latency is number => latency !== undefined);
      const failed = result.latencies.length - answered.length;
      const max = answered.length === 0 ? 'none' : `${Math.max(...answered).toFixed(0)} ms`;
      const signal = Number.isNaN(result.signalMs) ? 'never' : `${result.signalMs} ms`;
      const cells = [
        `${result.idle.toFixed(1)} MiB`.padStart(9),
        `${result.peak.toFixed(1)} (+${(result.peak - result.idle).toFixed(1)})`.padStart(15),
        `${result.after.toFixed(1)} MiB`.padStart(9),
        max.padStart(13),
        `${failed}/${result.latencies.length}`.padStart(7),
      ];
      console.log(`  ${name} ${cells.join(' ')} ${signal.padStart(8)} ${`${result.cpu.toFixed(1)} s`.padStart(7)}`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();

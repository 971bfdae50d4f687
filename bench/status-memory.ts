import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { median, SIDECAR_INIT } from './measure.ts';

// What the status server costs a pod: sidecar-init's resident memory while its
// app idles, without the server, with it, and with it after a burst of
// requests (a kubelet probing and Prometheus scraping for a while).
// Requests sent back to back make V8 grow its young generation and keep the
// pages: RSS then climbs to a plateau (measured: +150 MiB after 60,000
// requests, as a bare Node http server climbs +82 MiB) while the heap after a
// full GC stays flat, so it is not a leak; --max-semi-space-size=1 caps the
// plateau at +47 MiB. At 20 requests a second (far above a kubelet's and a
// scraper's rate) RSS settled at +18 MiB within a minute and stayed there.

const SETTLE_MS = 1_000;
const RUNS = 3;
const REQUESTS = 500;
const PATHS = ['/healthz', '/readyz', '/status', '/metrics'];

function rssKiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN);
}

function get(port: number, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      response.resume();
      response.on('end', resolve);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

interface Sample {
  readonly idleKiB: number;
  readonly afterRequestsKiB: number;
}

async function measure(withServer: boolean): Promise<Sample> {
  const args = [SIDECAR_INIT, '--log-level', 'info', ...(withServer ? ['--status-addr', '127.0.0.1:0'] : []), '--', 'sleep', '30'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let port = 0;
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    log += chunk;
    const match = /"event":"status-server-listening","host":"[^"]*","port":(\d+)/.exec(log);
    if (match !== null) port = Number(match[1]);
  });
  await delay(SETTLE_MS);
  const idleKiB = rssKiB(child.pid!);
  if (withServer) {
    if (port === 0) throw new Error(`no status server port in the log:\n${log}`);
    for (let index = 0; index < REQUESTS; index += 1) await get(port, PATHS[index % PATHS.length]!);
  }
  const afterRequestsKiB = rssKiB(child.pid!);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return { idleKiB, afterRequestsKiB };
}

export async function run(): Promise<void> {
  const without: Sample[] = [];
  const withServer: Sample[] = [];
  for (let index = 0; index < RUNS; index += 1) {
    without.push(await measure(false));
    withServer.push(await measure(true));
  }
  const mib = (samples: Sample[], key: keyof Sample) => median(samples.map((sample) => sample[key])) / 1024;
  const base = mib(without, 'idleKiB');
  console.log(`\nresident memory of sidecar-init with and without --status-addr (app: sleep, median of ${RUNS})`);
  console.log(`  ${'no server'.padEnd(28)} ${base.toFixed(1).padStart(7)} MiB`);
  const idle = mib(withServer, 'idleKiB');
  console.log(`  ${'status server, idle'.padEnd(28)} ${idle.toFixed(1).padStart(7)} MiB   +${(idle - base).toFixed(1)} MiB`);
  const busy = mib(withServer, 'afterRequestsKiB');
  console.log(`  ${`after ${REQUESTS} requests`.padEnd(28)} ${busy.toFixed(1).padStart(7)} MiB   +${(busy - base).toFixed(1)} MiB`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();

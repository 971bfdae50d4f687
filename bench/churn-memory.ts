import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { SIDECAR_INIT } from './measure.ts';

// What churn costs the supervisor itself, read from /proc/PID/stat and status:
// - idle probes: three sleeping sidecars with no probes, three `exec:true`
//   readiness probes, or one http and two tcp probes (each tracked every 1 s
//   once started), CPU as % of one core and RSS over IDLE_S seconds;
// - a crash loop: a sidecar that exits at once, restarted after 1 ms, RSS
//   after startup and its highest value over CRASH_LOOP_S seconds.
const STARTUP_MS = 2_000;
const IDLE_S = Number(process.env.IDLE_S ?? 10);
const CRASH_LOOP_S = Number(process.env.CRASH_LOOP_S ?? 120);
const SAMPLE_MS = 1_000;
const SERIES_EVERY_MS = 15_000;
const CLOCK_TICKS_PER_S = 100;

interface Usage {
  readonly cpuTicks: number;
  readonly rssMiB: number;
}

function usage(pid: number): Usage {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
  return { cpuTicks: Number(fields[11]) + Number(fields[12]), rssMiB: Number(rss?.[1]) / 1024 };
}

/** Runs sidecar-init on a YAML config; returns its pid and a stop function. */
async function withSupervisor<T>(yaml: string, measure: (pid: number) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-bench-'));
  const config = join(dir, 'sidecar-init.yaml');
  writeFileSync(config, yaml);
  const child = spawn(process.execPath, [SIDECAR_INIT, '--log-level', 'warn', '-c', config], { stdio: 'ignore' });
  try {
    return await measure(child.pid!);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

function sidecars(readiness: (index: number) => string | undefined): string {
  const lines = ['processes:'];
  for (let index = 0; index < 3; index += 1) {
    lines.push(`  - name: s${index}`, '    role: sidecar', '    command: [sleep, "1000"]');
    const probe = readiness(index);
    if (probe !== undefined) lines.push(`    readiness: { probe: ${JSON.stringify(probe)} }`);
  }
  lines.push('  - name: app', '    role: app', '    command: [sleep, "1000"]');
  return `${lines.join('\n')}\n`;
}

async function idle(yaml: string): Promise<{ cpuPercent: number; rssMiB: number }> {
  return withSupervisor(yaml, async (pid) => {
    await delay(STARTUP_MS);
    const before = usage(pid);
    await delay(IDLE_S * 1_000);
    const after = usage(pid);
    return { cpuPercent: ((after.cpuTicks - before.cpuTicks) / CLOCK_TICKS_PER_S / IDLE_S) * 100, rssMiB: after.rssMiB };
  });
}

export async function run(): Promise<void> {
  if (process.env.CRASH_LOOP_ONLY === undefined) await idleProbes();
  await crashLoop();
}

async function idleProbes(): Promise<void> {
  // A local listener for the http and tcp probes (any answer is enough for tcp; http gets 200).
  const server = createServer((socket) => {
    // A tcp probe closes at once: a reset is expected.
    socket.on('error', () => {});
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const variants: [string, string][] = [
    ['no probes', sidecars(() => undefined)],
    ['3 exec:true probes', sidecars(() => 'exec:true')],
    ['1 http + 2 tcp probes', sidecars((index) => (index === 0 ? `http://127.0.0.1:${port}/` : `tcp://127.0.0.1:${port}`))],
  ];
  console.log(`\nidle cost of readiness probes, three sleeping sidecars, over ${IDLE_S} s after startup`);
  let baseline: number | undefined;
  for (const [name, yaml] of variants) {
    const { cpuPercent, rssMiB } = await idle(yaml);
    baseline ??= rssMiB;
    console.log(
      `  ${name.padEnd(24)} ${cpuPercent.toFixed(2).padStart(6)} % of a core   ${rssMiB.toFixed(1).padStart(6)} MiB RSS   x${(rssMiB / baseline).toFixed(2)} vs no probes`,
    );
  }
  server.close();
}

async function crashLoop(): Promise<void> {
  const yaml = [
    'processes:',
    '  - name: crasher',
    '    role: sidecar',
    '    command: [/bin/sh, -c, "exit 1"]',
    '    restart: always',
    '    backoff: { initial: 1ms, max: 1ms }',
    '  - name: app',
    '    role: app',
    '    command: [sleep, "100000"]',
  ].join('\n');
  const { startMiB, maxMiB, endMiB } = await withSupervisor(`${yaml}\n`, async (pid) => {
    await delay(STARTUP_MS);
    const start = usage(pid).rssMiB;
    let max = start;
    const series: string[] = [];
    for (let elapsed = SAMPLE_MS; elapsed <= CRASH_LOOP_S * 1_000; elapsed += SAMPLE_MS) {
      await delay(SAMPLE_MS);
      const rss = usage(pid).rssMiB;
      max = Math.max(max, rss);
      if (elapsed % SERIES_EVERY_MS === 0) series.push(`${elapsed / 1_000}s ${rss.toFixed(0)}`);
    }
    console.log(`\ncrash loop RSS (MiB) every ${SERIES_EVERY_MS / 1_000} s: ${series.join(', ')}`);
    return { startMiB: start, maxMiB: max, endMiB: usage(pid).rssMiB };
  });
  console.log(`crash loop (restart after 1 ms) for ${CRASH_LOOP_S} s: RSS of sidecar-init`);
  console.log(
    `  after startup ${startMiB.toFixed(1)} MiB, highest ${maxMiB.toFixed(1)} MiB (x${(maxMiB / startMiB).toFixed(2)}), at the end ${endMiB.toFixed(1)} MiB`,
  );
}

if (import.meta.main) await run();

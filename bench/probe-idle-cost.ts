import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { median, NODE, SIDECAR_INIT } from './measure.ts';

// What exec probes cost the init while everything idles: three sidecars, each
// with an exec readiness probe (`true`) every second, and an app; the CPU time
// sidecar-init itself spends (utime + stime of its own process, not of the
// probe commands) over a window, as a share of one core, against the same
// pod without probes. Every attempt starts a command through execa (loaded on
// the first one), waits for its exit and kills its process group.
const RUNS = 3;
const WINDOW_MS = 20_000;
/** Past start-up and the first attempts (which load execa). */
const SETTLE_MS = 3_000;
const CLOCK_TICKS_PER_SECOND = 100;

type Scenario = 'three exec probes every 1s' | 'no probes';
const SCENARIOS: readonly Scenario[] = ['three exec probes every 1s', 'no probes'];

function config(scenario: Scenario): string {
  const probe = scenario === 'no probes' ? [] : ['    readiness: { probe: { exec: ["true"] }, period: 1s, periodAfterStart: 1s }'];
  const sidecars = [0, 1, 2].flatMap((index) => [`  - name: s${index}`, '    role: sidecar', '    command: [sleep, "600"]', ...probe]);
  return ['processes:', ...sidecars, '  - name: app', '    role: app', '    command: [sleep, "600"]', ''].join('\n');
}

/** utime + stime of the process itself, in seconds. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat(5); the slice starts at field 3.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

function residentMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

async function measure(scenario: Scenario, dir: string): Promise<{ cpuPercent: number; rssMiB: number }> {
  const file = join(dir, `${scenario === 'no probes' ? 'plain' : 'probes'}.yaml`);
  writeFileSync(file, config(scenario));
  const child = spawn(NODE, [SIDECAR_INIT, '--log-level', 'warn', '-c', file], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await delay(SETTLE_MS);
    const before = cpuSeconds(child.pid!);
    await delay(WINDOW_MS);
    const cpu = cpuSeconds(child.pid!) - before;
    return { cpuPercent: (cpu / (WINDOW_MS / 1000)) * 100, rssMiB: residentMiB(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-probe-idle-'));
  const samples = new Map<Scenario, { cpuPercent: number; rssMiB: number }[]>(SCENARIOS.map((scenario) => [scenario, []]));
  try {
    for (let index = 0; index < RUNS; index += 1) {
      for (const scenario of SCENARIOS) samples.get(scenario)!.push(await measure(scenario, dir));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nidle CPU of sidecar-init itself over ${WINDOW_MS / 1000}s, three sidecars and an app (median of ${RUNS})`);
  for (const [scenario, values] of samples) {
    const cpu = median(values.map((value) => value.cpuPercent));
    const rss = median(values.map((value) => value.rssMiB));
    console.log(`  ${scenario.padEnd(28)} ${cpu.toFixed(3).padStart(8)} % of a core   ${rss.toFixed(1).padStart(6)} MiB RSS`);
  }
}

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { CONTENDERS, median, NODE, report } from './measure.ts';
import type { Contender } from './measure.ts';

// Resident memory of the init itself while its app and three sidecars idle:
// what every pod pays. tini and dumb-init run the app only (they have no
// sidecars); a bare idle Node on the same version is the floor for a Node program.
const RUNS = 3;
const SIDECARS = ['sleep 60', 'sleep 60', 'sleep 60'];
const APP = ['sleep', '60'];
const BARE_NODE = 'bare idle node';
const FLOOR: Contender = { name: BARE_NODE, argv: () => [NODE, '-e', 'setInterval(() => {}, 1 << 30)'] };
// After its children are up, a Node process still allocates briefly.
const SETTLE_MS = 1_000;
const START_BOUND_MS = 10_000;

/** Resident memory, all of it and the anonymous (private) part, in MiB. */
function residentMiB(pid: number): { total: number; anonymous: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) / 1024;
  return { total: field('VmRSS'), anonymous: field('RssAnon') };
}

function childCount(pid: number): number {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).length;
  } catch {
    return 0;
  }
}

async function measure(contender: Contender): Promise<{ total: number; anonymous: number }> {
  const argv = contender.argv(APP, SIDECARS);
  const expected = contender === FLOOR ? 0 : argv.filter((arg) => arg === '--sidecar').length + 1;
  const child = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    // Started means: every process it runs is there (bounded; a failed start shows as NaN).
    for (const started = Date.now(); childCount(child.pid!) < expected && Date.now() - started < START_BOUND_MS; ) await delay(20);
    await delay(SETTLE_MS);
    return residentMiB(child.pid!);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

export async function run(): Promise<void> {
  const samples = new Map<string, { total: number; anonymous: number }[]>();
  for (let index = 0; index < RUNS; index += 1) {
    for (const contender of [...CONTENDERS, FLOOR]) {
      samples.set(contender.name, [...(samples.get(contender.name) ?? []), await measure(contender)]);
    }
  }
  const medians = (part: 'total' | 'anonymous') =>
    new Map([...samples].map(([name, values]) => [name, median(values.map((value) => value[part]))]));
  const what = `sidecar-init with three sidecars (median of ${RUNS})`;
  report(`idle resident memory (RSS) of the init, ${what}`, 'MiB', medians('total'), BARE_NODE);
  report(`idle anonymous resident memory (heap, stacks; not shared) of the init, ${what}`, 'MiB', medians('anonymous'), BARE_NODE);
}

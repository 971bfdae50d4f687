import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { CONTENDERS, median, NODE, NODE_EXECUTABLE_FLOOR, nodeFloorContender, report } from './measure.ts';
import type { Contender } from './measure.ts';
import { plainFigure, ratioFigure, recordFigure } from './summary.ts';

// Resident memory of the init itself while its app and three sidecars idle:
// what every pod pays. tini and dumb-init run the app only (they have no
// sidecars); a bare idle Node on the same version is the floor for a Node
// program, and a single executable of the same Node with the executable's V8
// options that only runs the app (NODE_EXECUTABLE_FLOOR) is what Node itself
// costs for the executable's work.
const RUNS = 3;
const SIDECARS = ['sleep 60', 'sleep 60', 'sleep 60'];
const APP = ['sleep', '60'];
const BARE_NODE = 'bare idle node';
const FLOOR: Contender = { name: BARE_NODE, argv: () => [NODE, '-e', 'setInterval(() => {}, 1 << 30)'] };
// Idle means after V8's memory reducer has freed what starting left behind:
// it starts 8 s after a start in Node (1 s in the executable, see
// scripts/build-binary.mjs), so every contender is read after the same wait.
const SETTLE_MS = Number(process.env.IDLE_SETTLE_MS ?? 10_000);
const START_BOUND_MS = 10_000;

/** The goals: private memory at most PRIVATE_GOAL_MIB, resident at most RSS_GOAL times a bare Node's. */
const PRIVATE_GOAL_MIB = 10;
const RSS_GOAL = 1.2;

interface Resident {
  /** VmRSS: every page resident, shared ones (Node's code) included. */
  readonly total: number;
  /** RssAnon: heap, stacks. */
  readonly anonymous: number;
  /** Private_Dirty of smaps_rollup: what this one process alone costs (another instance shares none of it). */
  readonly privateDirty: number;
  /** PSS: resident with each shared page divided among the processes that map it. */
  readonly proportional: number;
  /** Private_Dirty of the [heap] mapping alone: malloc's main arena (V8's heap is in anonymous mappings of its own). */
  readonly mallocHeap: number;
}
type Part = keyof Resident;

/** Resident memory from /proc/PID/status and smaps_rollup, in MiB. */
function residentMiB(pid: number): Resident {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const field = (text: string, name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN) / 1024;
  return {
    total: field(status, 'VmRSS'),
    anonymous: field(status, 'RssAnon'),
    privateDirty: field(rollup, 'Private_Dirty'),
    proportional: field(rollup, 'Pss'),
    mallocHeap: heapPrivateDirtyKiB(pid) / 1024,
  };
}

/** Private_Dirty of the [heap] mapping, from /proc/PID/smaps, in KiB. */
function heapPrivateDirtyKiB(pid: number): number {
  let inHeap = false;
  let total = 0;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inHeap = line.endsWith('[heap]');
    else if (inHeap && line.startsWith('Private_Dirty:')) total += Number(/(\d+) kB/.exec(line)?.[1] ?? 0);
  }
  return total;
}

function childCount(pid: number): number {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).length;
  } catch {
    return 0;
  }
}

async function measure(contender: Contender): Promise<Resident> {
  const argv = contender.argv(APP, SIDECARS);
  const expected =
    contender === FLOOR ? 0 : contender.name === NODE_EXECUTABLE_FLOOR ? 1 : argv.filter((arg) => arg === '--sidecar').length + 1;
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
  const samples = new Map<string, Resident[]>();
  const nodeFloor = await nodeFloorContender();
  for (let index = 0; index < RUNS; index += 1) {
    for (const contender of [...CONTENDERS, FLOOR, nodeFloor]) {
      samples.set(contender.name, [...(samples.get(contender.name) ?? []), await measure(contender)]);
    }
  }
  const medians = (part: Part) => new Map([...samples].map(([name, values]) => [name, median(values.map((value) => value[part]))]));
  const what = `sidecar-init with three sidecars (median of ${RUNS})`;
  report(`idle resident memory (RSS) of the init, ${what}`, 'MiB', medians('total'), BARE_NODE);
  report(`idle anonymous resident memory (heap, stacks; not shared) of the init, ${what}`, 'MiB', medians('anonymous'), BARE_NODE);
  report(`idle private memory (Private_Dirty: what each instance alone costs), ${what}`, 'MiB', medians('privateDirty'), BARE_NODE);
  report(`idle proportional memory (PSS), ${what}`, 'MiB', medians('proportional'), BARE_NODE);
  report(`of the private memory, malloc's heap ([heap]; the rest is mostly V8's heap), ${what}`, 'MiB', medians('mallocHeap'), BARE_NODE);
  const ours = (part: Part) => medians(part).get('sidecar-init executable');
  const floor = (part: Part) => medians(part).get(BARE_NODE) ?? Number.NaN;
  const privateDirty = ours('privateDirty');
  const total = ours('total');
  if (privateDirty === undefined || total === undefined) return;
  recordFigure({
    figure: 'private memory (Private_Dirty), idle, three sidecars, executable',
    value: `${privateDirty.toFixed(1)} MiB`,
    reference: `bare idle \`node\` ${floor('privateDirty').toFixed(1)} MiB`,
    ratio: privateDirty / floor('privateDirty'),
    goal: `≤ ${PRIVATE_GOAL_MIB} MiB`,
    met: privateDirty <= PRIVATE_GOAL_MIB,
  });
  const nodeOwn = medians('privateDirty').get(NODE_EXECUTABLE_FLOOR) ?? Number.NaN;
  recordFigure(
    plainFigure(
      "private memory, idle: a Node single executable that only runs the app (Node's own share)",
      `${nodeOwn.toFixed(1)} MiB`,
      `bare idle \`node\` ${floor('privateDirty').toFixed(1)} MiB`,
      nodeOwn / floor('privateDirty'),
    ),
  );
  recordFigure(
    ratioFigure(
      'RSS, the same',
      `${total.toFixed(1)} MiB`,
      `bare idle \`node\` ${floor('total').toFixed(1)} MiB`,
      total / floor('total'),
      RSS_GOAL,
      'bare node',
    ),
  );
}

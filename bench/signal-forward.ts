import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { CONTENDERS, NODE, reportSpread, spreadOf } from './measure.ts';
import type { Contender } from './measure.ts';
import { ratioFigure, recordFigure } from './summary.ts';

// How long a signal sent to the init takes to reach its app: SIGHUP to the
// init, then the app (python, which writes CLOCK_MONOTONIC when its handler
// runs) reports it on stdout; the next signal only after that. Both clocks are
// the same system-wide CLOCK_MONOTONIC (process.hrtime, time.monotonic_ns), so
// the difference is the delivery time, python's own reaction included (the
// `direct` row: the signal sent to python itself). Beside it, the CPU time the
// init spends per signal (all its threads, from /proc/PID/task/*/schedstat, in
// nanoseconds), which a loaded machine does not disturb. sidecar-init runs at
// its default log level, as users run it: each signal is a log line. Not as
// PID 1: how a signal reaches PID 1 is the same for every init.
const SIGNALS = Number(process.env.SIGNALS ?? 40);
const ROUNDS = 3;
const DIRECT = 'direct (no init)';
const FORWARD_GOAL_VS_TINI = 1.5;
const START_BOUND_MS = 10_000;
const RECEIVER = `
import os, signal, time
signal.signal(signal.SIGHUP, lambda number, frame: os.write(1, b'%d\\n' % time.monotonic_ns()))
os.write(1, b'ready %d\\n' % os.getpid())
while True:
    signal.pause()
`;
const APP = ['python3', '-c', RECEIVER];
/** The floor for a Node init: a listener that only passes SIGHUP on (the same Node, the executable's V8 options). */
const BARE_NODE = 'bare node forwarder';
const FORWARDER = `const child = require('node:child_process').spawn(process.argv[1], process.argv.slice(2), { stdio: 'inherit' });
process.on('SIGHUP', () => child.kill('SIGHUP'));
child.on('exit', (code) => process.exit(code ?? 1));`;

/** CPU time of every thread of `pid` so far, in µs. */
function cpuMicros(pid: number): number {
  const tasks = readdirSync(`/proc/${pid}/task`);
  return tasks.reduce((sum, task) => sum + Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1_000, 0);
}

/** sidecar-init as users run it: at its default log level. */
function atDefaultLogLevel(argv: readonly string[]): string[] {
  const index = argv.indexOf('--log-level');
  return index < 0 ? [...argv] : [...argv.slice(0, index), ...argv.slice(index + 2)];
}

interface Forwarding {
  /** µs from kill() to the app's handler, one per signal. */
  readonly latencies: number[];
  /** The init's CPU time per signal, µs. */
  readonly cpuPerSignal: number;
}

async function measure(contender: Contender): Promise<Forwarding> {
  const argv = atDefaultLogLevel(contender.argv(APP));
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'ignore'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const bound = setTimeout(() => child.kill('SIGKILL'), START_BOUND_MS + SIGNALS * 1_000);
  let receiver: number | undefined;
  try {
    const ready = await lines.next();
    receiver = ready.done === true ? undefined : Number(/^ready (\d+)$/.exec(ready.value)?.[1]);
    if (receiver === undefined) throw new Error(`${contender.name}: the receiver did not start`);
    const latencies: number[] = [];
    const cpuBefore = cpuMicros(child.pid!);
    for (let index = 0; index < SIGNALS; index += 1) {
      const sent = process.hrtime.bigint();
      process.kill(child.pid!, 'SIGHUP');
      const received = await lines.next();
      if (received.done === true) throw new Error(`${contender.name}: the receiver ended after ${index} signals`);
      latencies.push(Number(BigInt(received.value) - sent) / 1_000);
    }
    return { latencies, cpuPerSignal: (cpuMicros(child.pid!) - cpuBefore) / SIGNALS };
  } finally {
    // Every init passes SIGTERM on; the receiver (in its own session under
    // some inits) is then killed by pid if it is still there.
    child.kill('SIGTERM');
    await exited;
    clearTimeout(bound);
    if (receiver !== undefined) killIfAlive(receiver);
  }
}

function killIfAlive(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone: what should happen.
  }
}

export async function run(): Promise<void> {
  const contenders: Contender[] = [
    { name: DIRECT, argv: (app) => [...app] },
    ...CONTENDERS,
    { name: BARE_NODE, argv: (app) => [NODE, '--max-semi-space-size=1', '--jitless', '-e', FORWARDER, ...app] },
  ];
  const samples = new Map<string, number[]>(contenders.map((contender) => [contender.name, []]));
  const cpu = new Map<string, number[]>(contenders.map((contender) => [contender.name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const contender of contenders) {
      const forwarding = await measure(contender);
      samples.get(contender.name)!.push(...forwarding.latencies);
      cpu.get(contender.name)!.push(forwarding.cpuPerSignal);
    }
  }
  const spreads = new Map([...samples].map(([name, values]) => [name, spreadOf(values)]));
  const what = `${ROUNDS} x ${SIGNALS} signals`;
  reportSpread(`SIGHUP sent to the init until the app's handler ran (${what}, median, middle half)`, 'µs', spreads, 'tini', 0);
  const cpuSpreads = new Map([...cpu].map(([name, values]) => [name, spreadOf(values)]));
  reportSpread(`the same: CPU time of the init per signal (direct: of the app; median of ${ROUNDS} rounds)`, 'µs', cpuSpreads, 'tini', 0);
  const ours = spreads.get('sidecar-init executable')?.median;
  const tini = spreads.get('tini')?.median ?? Number.NaN;
  if (ours === undefined) return;
  const references = contenders
    .filter((contender) => !contender.name.startsWith('sidecar-init') && contender.name !== 'baseline executable')
    .map((contender) => `${contender.name} ${spreads.get(contender.name)!.median.toFixed(0)} µs`)
    .join(', ');
  recordFigure(
    ratioFigure(
      `SIGHUP forwarded to a python receiver (${ROUNDS} x ${SIGNALS} signals), executable`,
      `${ours.toFixed(0)} µs`,
      references,
      ours / tini,
      FORWARD_GOAL_VS_TINI,
      'tini',
    ),
  );
}

if (import.meta.main) await run();

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { asPid1, CONTENDERS, NODE, reportSpread, spreadOf } from './measure.ts';
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
// its default log level, as users run it: each signal is a log line.
//
// Two cases. Back to back: the next signal as soon as the app had the last,
// not as PID 1 (how a signal reaches PID 1 is the same for every init): the
// init's loop is still warm. Spaced: one signal every SPACED_INTERVAL_MS, each
// init as PID 1 of its own PID namespace and the app sleeping in time.sleep,
// as in a pod, where a signal finds the init idle: what an idle init costs to
// wake, which the back-to-back case hides. The spaced series begins
// SPACED_SETTLE_MS after the app is up, as a pod's signals come: once the
// init's start is over (sidecar-init's V8 memory reducer runs 1 s after its
// start, its malloc trim 2 s after; neither is observable at the default log
// level, so a fixed settle, said in the output).
//
// The init's CPU is read once it has done all its work for the signals:
// sidecar-init logs its forwarded signals a moment after passing them on (a
// `forwarded` line per signal with a count); its CPU is read once its lines
// count every signal sent, so that deferred work is counted too.
const SIGNALS = Number(process.env.SIGNALS ?? 40);
const ROUNDS = 3;
const SPACED_INTERVAL_MS = 50;
/** $SPACED_SETTLE_MS=0: the series from the moment the app is up, as before, to see what the start adds. */
const SPACED_SETTLE_MS = Number(process.env.SPACED_SETTLE_MS ?? 3_000);
const DIRECT = 'direct (no init)';
/** The goals of both cases' latency (sidecar-init / tini) and of the CPU per forwarded signal. */
const FORWARD_GOAL_VS_TINI = 1.2;
const CPU_GOAL_VS_TINI = 2;
const START_BOUND_MS = 10_000;
const RECEIVER = `
import os, signal, sys, time
signal.signal(signal.SIGHUP, lambda number, frame: os.write(1, b'%d\\n' % time.monotonic_ns()))
os.write(1, b'ready %d\\n' % os.getpid())
while True:
    signal.pause() if sys.argv[1] == 'pause' else time.sleep(3600)
`;
const appOf = (wait: 'pause' | 'sleep') => ['python3', '-c', RECEIVER, wait];
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

/** How the signals are sent: back to back, or spaced with the init as PID 1. */
type Pace = { readonly kind: 'back-to-back' } | { readonly kind: 'spaced'; readonly intervalMs: number; readonly settleMs: number };

interface Forwarding {
  /** µs from kill() to the app's handler, one per signal. */
  readonly latencies: number[];
  /** The init's CPU time per signal, µs. */
  readonly cpuPerSignal: number;
}

async function measure(contender: Contender, pace: Pace): Promise<Forwarding> {
  const argv = atDefaultLogLevel(contender.argv(appOf(pace.kind === 'spaced' ? 'sleep' : 'pause')));
  const command = pace.kind === 'spaced' ? asPid1(argv) : argv;
  const logsForwards = contender.name.startsWith('sidecar-init') || contender.name === 'baseline executable';
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', logsForwards ? 'pipe' : 'ignore'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const logged = logsForwards ? countForwardedLines(child.stderr!) : undefined;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let receiver: number | undefined;
  let init: number | undefined;
  // Past the bound, the receiver goes too: an init that died without passing a signal on
  // (dumb-init did, once in two runs) leaves it holding the line the run waits for.
  const bound = setTimeout(
    () => {
      child.kill('SIGKILL');
      if (receiver !== undefined) killIfAlive(receiver);
    },
    START_BOUND_MS + SIGNALS * 1_000,
  );
  try {
    const ready = await lines.next();
    receiver = ready.done === true ? undefined : Number(/^ready (\d+)$/.exec(ready.value)?.[1]);
    if (receiver === undefined) throw new Error(`${contender.name}: the receiver did not start`);
    // As PID 1, the init is unshare's only child; the receiver's pid is then the namespace's.
    init = pace.kind === 'spaced' ? onlyChildOf(child.pid!) : child.pid!;
    if (pace.kind === 'spaced') await pauseUntil(process.hrtime.bigint() + BigInt(pace.settleMs) * 1_000_000n);
    const latencies: number[] = [];
    const cpuBefore = cpuMicros(init);
    let last = process.hrtime.bigint();
    for (let index = 0; index < SIGNALS; index += 1) {
      if (pace.kind === 'spaced') await pauseUntil(last + BigInt(pace.intervalMs) * 1_000_000n);
      const sent = process.hrtime.bigint();
      last = sent;
      process.kill(init, 'SIGHUP');
      const received = await lines.next();
      if (received.done === true) throw new Error(`${contender.name}: the receiver ended after ${index} signals`);
      latencies.push(Number(BigInt(received.value) - sent) / 1_000);
    }
    await logged?.reach(SIGNALS);
    return { latencies, cpuPerSignal: (cpuMicros(init) - cpuBefore) / SIGNALS };
  } finally {
    if (pace.kind === 'spaced' && init !== undefined) {
      // PID 1 gone, the kernel ends everything in its namespace, receiver included.
      killIfAlive(init);
    } else {
      // Every init passes SIGTERM on; the receiver (in its own session under
      // some inits) is then killed by pid if it is still there.
      child.kill('SIGTERM');
    }
    await exited;
    clearTimeout(bound);
    if (pace.kind === 'back-to-back' && receiver !== undefined) killIfAlive(receiver);
  }
}

/**
 * The signals sidecar-init's `forwarded` lines on `stderr` account for so far
 * (a line's `count`, 1 without one: before lines carried counts); reach(n)
 * resolves once they are n.
 */
function countForwardedLines(stderr: NodeJS.ReadableStream): { reach(count: number): Promise<void> } {
  let seen = 0;
  let waiting: { count: number; resolve: () => void } | undefined;
  createInterface({ input: stderr }).on('line', (line) => {
    if (!line.includes('"forwarded"')) return;
    const entry = JSON.parse(line) as { event?: string; count?: number };
    if (entry.event !== 'forwarded') return;
    seen += entry.count ?? 1;
    if (waiting !== undefined && seen >= waiting.count) waiting.resolve();
  });
  return {
    reach: (count) => (seen >= count ? Promise.resolve() : new Promise((resolve) => (waiting = { count, resolve }))),
  };
}

/** The one child of `pid` (unshare --fork's: the namespace's PID 1). */
function onlyChildOf(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  if (children.length !== 1) throw new Error(`unshare (pid ${pid}) has ${children.length} children, not one`);
  return Number(children[0]);
}

/** Resolves at `deadline` (process.hrtime.bigint()'s clock), at once if it has passed. */
function pauseUntil(deadline: bigint): Promise<void> {
  const leftMs = Number(deadline - process.hrtime.bigint()) / 1e6;
  return leftMs <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, leftMs));
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
  await runCase(contenders, { kind: 'back-to-back' }, 'back to back');
  await runCase(
    contenders,
    { kind: 'spaced', intervalMs: SPACED_INTERVAL_MS, settleMs: SPACED_SETTLE_MS },
    SPACED_SETTLE_MS === 0
      ? `one every ${SPACED_INTERVAL_MS} ms from the moment the app is up, as PID 1`
      : `one every ${SPACED_INTERVAL_MS} ms from ${SPACED_SETTLE_MS / 1_000} s after the app is up (a fixed settle), as PID 1`,
  );
}

async function runCase(contenders: readonly Contender[], pace: Pace, label: string): Promise<void> {
  const samples = new Map<string, number[]>(contenders.map((contender) => [contender.name, []]));
  const cpu = new Map<string, number[]>(contenders.map((contender) => [contender.name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const contender of contenders) {
      const forwarding = await measure(contender, pace);
      samples.get(contender.name)!.push(...forwarding.latencies);
      cpu.get(contender.name)!.push(forwarding.cpuPerSignal);
    }
  }
  const spreads = new Map([...samples].map(([name, values]) => [name, spreadOf(values)]));
  const what = `${ROUNDS} x ${SIGNALS} signals, ${label}`;
  reportSpread(`SIGHUP sent to the init until the app's handler ran (${what}; median, middle half)`, 'µs', spreads, 'tini', 0);
  const cpuSpreads = new Map([...cpu].map(([name, values]) => [name, spreadOf(values)]));
  reportSpread(`the same: CPU time of the init per signal (direct: of the app; median of ${ROUNDS} rounds)`, 'µs', cpuSpreads, 'tini', 0);
  const ours = spreads.get('sidecar-init executable')?.median;
  const oursCpu = cpuSpreads.get('sidecar-init executable')?.median;
  if (ours === undefined || oursCpu === undefined) return;
  const tini = spreads.get('tini')?.median ?? Number.NaN;
  const tiniCpu = cpuSpreads.get('tini')?.median ?? Number.NaN;
  const referencesOf = (values: ReadonlyMap<string, { median: number }>) =>
    contenders
      .filter((contender) => !contender.name.startsWith('sidecar-init') && contender.name !== 'baseline executable')
      .map((contender) => `${contender.name} ${values.get(contender.name)!.median.toFixed(0)} µs`)
      .join(', ');
  recordFigure(
    ratioFigure(
      `SIGHUP forwarded to a python receiver (${what}), executable`,
      `${ours.toFixed(0)} µs`,
      referencesOf(spreads),
      ours / tini,
      FORWARD_GOAL_VS_TINI,
      'tini',
    ),
  );
  recordFigure(
    ratioFigure(
      `CPU of the init per forwarded signal (${label}), executable`,
      `${oursCpu.toFixed(0)} µs`,
      referencesOf(cpuSpreads),
      oursCpu / tiniCpu,
      CPU_GOAL_VS_TINI,
      'tini',
    ),
  );
}

if (import.meta.main) await run();

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CONTENDERS, reportSpread, spreadOf } from './measure.ts';
import type { Contender } from './measure.ts';
import { ratioFigure, recordFigure } from './summary.ts';

// How long a signal sent to the init takes to reach its app: SIGHUP to the
// init, then the app (python, which writes CLOCK_MONOTONIC when its handler
// runs) reports it on stdout; the next signal only after that. Both clocks are
// the same system-wide CLOCK_MONOTONIC (process.hrtime, time.monotonic_ns), so
// the difference is the delivery time, python's own reaction included (the
// `direct` row: the signal sent to python itself). Not as PID 1: how a signal
// reaches PID 1 is the same for every init.
const SIGNALS = Number(process.env.SIGNALS ?? 40);
const ROUNDS = 3;
const DIRECT = 'direct (no init)';
const FORWARD_GOAL_VS_TINI = 1.5;
const START_BOUND_MS = 10_000;
const RECEIVER = `
import os, signal, time
signal.signal(signal.SIGHUP, lambda number, frame: os.write(1, b'%d\\n' % time.monotonic_ns()))
os.write(1, b'ready\\n')
while True:
    signal.pause()
`;
const APP = ['python3', '-c', RECEIVER];

/** Microseconds from kill() to the app's handler, for each of SIGNALS signals. */
async function measure(contender: Contender): Promise<number[]> {
  const argv = contender.argv(APP);
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const bound = setTimeout(() => child.kill('SIGKILL'), START_BOUND_MS + SIGNALS * 1_000);
  try {
    const ready = await lines.next();
    if (ready.done === true || ready.value !== 'ready') throw new Error(`${contender.name}: the receiver did not start`);
    const latencies: number[] = [];
    for (let index = 0; index < SIGNALS; index += 1) {
      const sent = process.hrtime.bigint();
      process.kill(child.pid!, 'SIGHUP');
      const received = await lines.next();
      if (received.done === true) throw new Error(`${contender.name}: the receiver ended after ${index} signals`);
      latencies.push(Number(BigInt(received.value) - sent) / 1_000);
    }
    return latencies;
  } finally {
    clearTimeout(bound);
    // The whole group: an init that died would otherwise leave the receiver behind.
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
  }
}

export async function run(): Promise<void> {
  const contenders: Contender[] = [{ name: DIRECT, argv: (app) => [...app] }, ...CONTENDERS];
  const samples = new Map<string, number[]>(contenders.map((contender) => [contender.name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const contender of contenders) samples.get(contender.name)!.push(...(await measure(contender)));
  }
  const spreads = new Map([...samples].map(([name, values]) => [name, spreadOf(values)]));
  reportSpread(
    `SIGHUP sent to the init until the app's handler ran (${ROUNDS} x ${SIGNALS} signals, median, middle half)`,
    'µs',
    spreads,
    'tini',
    0,
  );
  const ours = spreads.get('sidecar-init executable')?.median;
  const tini = spreads.get('tini')?.median ?? Number.NaN;
  if (ours === undefined) return;
  const references = contenders
    .filter((contender) => !contender.name.startsWith('sidecar-init'))
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

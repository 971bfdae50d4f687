import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { createLineFormat } from '../src/output/line-format.ts';
import { createLineWriter } from '../src/output/line-writer.ts';
import type { LineOutputMode } from '../src/output/output-mode.ts';
import { pipeOutput } from '../src/output/pipe-output.ts';
import { median } from './measure.ts';

// Throughput of a child's output passing through sidecar-init: a raw pipe
// (bytes forwarded unchanged, what a log probe's tee costs) against the prefix
// and json output modes. The child writes 80-byte lines as fast as it can; the
// reader is `cat > /dev/null` on a pipe, as a container runtime's log reader.
// The goal for prefix is at least half of the raw pipe.

const BYTES = 256 * 1024 * 1024;
const RUNS = 3;
const LINE = 'INFO 2026-01-01T00:00:00Z request served path=/api/v1/items status=200 ms=3';

type Route = 'raw' | LineOutputMode;
const ROUTES: readonly Route[] = ['raw', 'prefix', 'json'];

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function measure(route: Route): Promise<number> {
  const reader = spawn('sh', ['-c', 'exec cat > /dev/null'], { stdio: ['pipe', 'ignore', 'inherit'] });
  const writer = spawn('sh', ['-c', `yes '${LINE}' | head -c ${BYTES}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const done = Promise.all([exited(writer), exited(reader)]);
  const started = process.hrtime.bigint();
  const source = writer.stdout as Readable;
  const sink = reader.stdin as Writable;
  if (route === 'raw') {
    source.pipe(sink, { end: false });
    await new Promise((resolve) => source.once('end', resolve));
  } else {
    const lines = createLineWriter(createLineFormat({ mode: route, name: 'app', width: 8, stream: 'stdout' }));
    await pipeOutput(source, lines, sink);
  }
  sink.end();
  await done;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return BYTES / (1024 * 1024) / seconds;
}

export async function run(): Promise<void> {
  const samples = new Map<Route, number[]>(ROUTES.map((route) => [route, []]));
  for (let run = 0; run < RUNS; run += 1) {
    for (const route of ROUTES) samples.get(route)!.push(await measure(route));
  }
  const raw = median(samples.get('raw')!);
  console.log(`\nchild output through sidecar-init (${BYTES / 1024 / 1024} MiB of ${LINE.length + 1}-byte lines, median of ${RUNS})`);
  for (const route of ROUTES) {
    const value = median(samples.get(route)!);
    console.log(`  ${route.padEnd(14)} ${value.toFixed(0).padStart(10)} MiB/s   x${(value / raw).toFixed(2)} vs raw pipe`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

// Shared by the scenarios: how each init is invoked, and how a run is timed.

export const SIDECAR_INIT = fileURLToPath(new URL('../bin/sidecar-init', import.meta.url));

export interface Contender {
  readonly name: string;
  /** argv that runs `app...` under this init. */
  argv(app: readonly string[]): string[];
}

/** tini and dumb-init as Debian packages them; -s makes tini a subreaper when it is not PID 1. */
export const CONTENDERS: readonly Contender[] = [
  { name: 'tini', argv: (app) => ['tini', '-s', '--', ...app] },
  { name: 'dumb-init', argv: (app) => ['dumb-init', ...app] },
  { name: 'sidecar-init', argv: (app) => [process.execPath, SIDECAR_INIT, '--log-level', 'warn', '--', ...app] },
];

export function missingTools(): string[] {
  return ['tini', 'dumb-init', 'unshare'].filter((tool) => !['/usr/bin/', '/bin/', '/usr/sbin/'].some((dir) => existsSync(dir + tool)));
}

/** Wall time of one synchronous run, in milliseconds; throws if it failed. */
export function timeRun(argv: readonly string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  return elapsedMs;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Runs every contender `runs` times, interleaved so machine noise hits all alike. */
export function compare(runs: number, measure: (contender: Contender) => number): Map<string, number> {
  const samples = new Map<string, number[]>(CONTENDERS.map((contender) => [contender.name, []]));
  for (let run = 0; run < runs; run += 1) {
    for (const contender of CONTENDERS) samples.get(contender.name)!.push(measure(contender));
  }
  return new Map([...samples].map(([name, values]) => [name, median(values)]));
}

/** One table: each contender's median and its ratio to tini. */
export function report(title: string, unit: string, medians: ReadonlyMap<string, number>): void {
  const base = medians.get('tini') ?? 1;
  console.log(`\n${title}`);
  for (const [name, value] of medians) {
    console.log(`  ${name.padEnd(14)} ${value.toFixed(2).padStart(10)} ${unit}   x${(value / base).toFixed(2)} vs tini`);
  }
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

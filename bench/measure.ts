import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

// Shared by the scenarios: how each init is invoked, and how a run is timed.

export const SIDECAR_INIT = fileURLToPath(new URL('../bin/sidecar-init', import.meta.url));
/** The single executable (npm run build:binary; npm run bench builds it). */
const BUILT_BINARY = fileURLToPath(new URL('../dist/sidecar-init', import.meta.url));

// File-backed resident memory depends on how a file's pages sit in the page
// cache (recent kernels map whole large folios): the same executable measured
// 41 or 61 MiB resident depending on how its file had been written. So the
// Node binary and the executable run from copies made the same way.
const COPIES = mkdtempSync(join(tmpdir(), 'sidecar-init-bench-'));
process.on('exit', () => rmSync(COPIES, { recursive: true, force: true }));
function copied(file: string, name: string): string {
  const copy = join(COPIES, name);
  copyFileSync(file, copy);
  chmodSync(copy, 0o755);
  return copy;
}
/** The Node running the bench (the project's), copied; every Node contender runs it. */
export const NODE = copied(process.execPath, 'node');
export const SIDECAR_INIT_BINARY = existsSync(BUILT_BINARY) ? copied(BUILT_BINARY, 'sidecar-init') : undefined;

export interface Contender {
  readonly name: string;
  /** argv that runs `app...` under this init, with these sidecar commands if it can run sidecars. */
  argv(app: readonly string[], sidecars?: readonly string[]): string[];
}

const sidecarFlags = (sidecars: readonly string[] = []) => sidecars.flatMap((command, index) => ['--sidecar', `s${index}=${command}`]);

/** tini and dumb-init as Debian packages them; -s makes tini a subreaper when it is not PID 1. */
export const CONTENDERS: readonly Contender[] = [
  { name: 'tini', argv: (app) => ['tini', '-s', '--', ...app] },
  { name: 'dumb-init', argv: (app) => ['dumb-init', ...app] },
  {
    name: 'sidecar-init',
    argv: (app, sidecars) => [NODE, SIDECAR_INIT, '--log-level', 'warn', ...sidecarFlags(sidecars), '--', ...app],
  },
  ...(SIDECAR_INIT_BINARY !== undefined
    ? [
        {
          name: 'sidecar-init executable',
          argv: (app: readonly string[], sidecars?: readonly string[]) => [
            SIDECAR_INIT_BINARY,
            '--log-level',
            'warn',
            ...sidecarFlags(sidecars),
            '--',
            ...app,
          ],
        },
      ]
    : []),
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
export function compare(
  runs: number,
  measure: (contender: Contender) => number,
  contenders: readonly Contender[] = CONTENDERS,
): Map<string, number> {
  const samples = new Map<string, number[]>(contenders.map((contender) => [contender.name, []]));
  for (let run = 0; run < runs; run += 1) {
    for (const contender of contenders) samples.get(contender.name)!.push(measure(contender));
  }
  return new Map([...samples].map(([name, values]) => [name, median(values)]));
}

/**
 * One table: each contender's median and its ratio to tini, and with
 * `baseline` (a bare Node's figure, measured in the same run) also to that,
 * which is what a Node program can hope to approach.
 */
export function report(title: string, unit: string, medians: ReadonlyMap<string, number>, baseline?: string): void {
  const base = medians.get('tini') ?? 1;
  const node = baseline === undefined ? undefined : medians.get(baseline);
  console.log(`\n${title}`);
  for (const [name, value] of medians) {
    const vsNode = node === undefined ? '' : `   x${(value / node).toFixed(2)} vs ${baseline}`;
    console.log(`  ${name.padEnd(24)} ${value.toFixed(2).padStart(10)} ${unit}   x${(value / base).toFixed(2)} vs tini${vsNode}`);
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

import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir } from 'node:os';
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
  // Written back now: until then its pages count as Private_Dirty in every process that maps it.
  const fd = openSync(copy, 'r');
  fsyncSync(fd);
  closeSync(fd);
  return copy;
}
/** The Node running the bench (the project's), copied; every Node contender runs it. */
export const NODE = copied(process.execPath, 'node');
export const SIDECAR_INIT_BINARY = existsSync(BUILT_BINARY) ? copied(BUILT_BINARY, 'sidecar-init') : undefined;
/**
 * $BENCH_BASELINE: another build of the executable (say, main's) measured
 * beside this one in the same run, so a change's before and after share the
 * machine's load. Not named SIDECAR_INIT_*: sidecar-init refuses a variable of
 * its own prefix that it does not read, and every run inherits the bench's
 * environment.
 */
const BASELINE_BINARY = process.env.BENCH_BASELINE ? copied(process.env.BENCH_BASELINE, 'sidecar-init-baseline') : undefined;

/**
 * What Node itself costs for the executable's work: a single executable of the
 * same Node with the same V8 options whose main script only runs its app
 * (scripts/build-binary.mjs, buildNodeFloorExecutable), built once per bench
 * run into the copies' folder. A goal the executable misses is read against it.
 */
export const NODE_EXECUTABLE_FLOOR = 'Node executable (floor)';
let floorExecutable: Promise<string> | undefined;
export function nodeFloorExecutable(): Promise<string> {
  floorExecutable ??= (async () => {
    const { buildNodeFloorExecutable } = await import(fileURLToPath(new URL('../scripts/build-binary.mjs', import.meta.url)));
    const built = join(COPIES, 'node-floor-build');
    await buildNodeFloorExecutable(built);
    return copied(built, 'node-floor');
  })();
  return floorExecutable;
}
/** The floor as a contender: it runs the app only (it has no sidecars). */
export async function nodeFloorContender(): Promise<Contender> {
  const executable = await nodeFloorExecutable();
  return { name: NODE_EXECUTABLE_FLOOR, argv: (app) => [executable, ...app] };
}

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
  ...(BASELINE_BINARY !== undefined
    ? [
        {
          name: 'baseline executable',
          argv: (app: readonly string[], sidecars?: readonly string[]) => [
            BASELINE_BINARY,
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
  return ['tini', 'dumb-init', 'unshare', 'python3'].filter(
    (tool) => !['/usr/bin/', '/bin/', '/usr/sbin/'].some((dir) => existsSync(dir + tool)),
  );
}

/** Runs `argv` as PID 1 of a new PID namespace, with its own /proc, as a container runtime would. */
export const asPid1 = (argv: readonly string[]): string[] => ['unshare', '--pid', '--fork', '--mount-proc', ...argv];

/** The machine a run measured, printed first: figures from different machines do not compare. */
export function describeMachine(): string {
  const model = /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? 'unknown CPU';
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  return `${model}, ${cpus().length} cores, Linux ${release()}, Node ${process.version}, load average ${load}`;
}

/** What one run cost: wall time, and CPU time and page faults of the run and everything it waited for. */
export interface RunCost {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly faults: number;
}

const RUSAGE = fileURLToPath(new URL('./rusage.py', import.meta.url));

/**
 * One synchronous run with its rusage (wait4, through bench/rusage.py: Node's
 * spawnSync returns none). CPU time is what a loaded machine disturbs least;
 * wall time also counts waiting for a core. Throws if the run failed.
 */
export function costOfRun(argv: readonly string[]): RunCost {
  const result = spawnSync('python3', [RUSAGE, ...argv], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const cost = result.status === 0 ? (JSON.parse(result.stdout) as RunCost & { status: number }) : undefined;
  if (cost === undefined || cost.status !== 0) {
    throw new Error(`${argv.join(' ')} exited ${cost?.status ?? result.status}: ${result.stderr}`);
  }
  return cost;
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
  return quantile(values, 0.5);
}

/** The q-quantile (0..1), interpolated between the two nearest samples. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const below = sorted[Math.floor(position)]!;
  const above = sorted[Math.ceil(position)]!;
  return below + (above - below) * (position - Math.floor(position));
}

/** Median and spread (the middle half of the samples, 25th to 75th percentile). */
export interface Spread {
  readonly median: number;
  readonly p25: number;
  readonly p75: number;
}

export function spreadOf(values: readonly number[]): Spread {
  return { median: median(values), p25: quantile(values, 0.25), p75: quantile(values, 0.75) };
}

/** Every contender's samples, `runs` rounds interleaved so machine noise hits all alike. */
export function sampleInterleaved<T>(
  runs: number,
  contenders: readonly Contender[],
  measure: (contender: Contender) => T,
): Map<string, T[]> {
  const samples = new Map<string, T[]>(contenders.map((contender) => [contender.name, []]));
  for (let run = 0; run < runs; run += 1) {
    for (const contender of contenders) samples.get(contender.name)!.push(measure(contender));
  }
  return samples;
}

/**
 * One table of medians with their spread, and each one's ratio to `baseline`
 * (a contender measured in the same run).
 */
export function reportSpread(title: string, unit: string, spreads: ReadonlyMap<string, Spread>, baseline: string, digits = 1): void {
  const base = spreads.get(baseline)?.median ?? Number.NaN;
  console.log(`\n${title}`);
  for (const [name, spread] of spreads) {
    const range = `(${spread.p25.toFixed(digits)}-${spread.p75.toFixed(digits)})`;
    console.log(
      `  ${name.padEnd(26)} ${spread.median.toFixed(digits).padStart(9)} ${unit} ${range.padEnd(17)} x${(spread.median / base).toFixed(2)} vs ${baseline}`,
    );
  }
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

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asPid1, NODE } from './measure.ts';

// Where `-- true` spends its CPU as PID 1: a V8 CPU profile of a start, made
// the way the executable starts (the project's Node, the executable's V8
// options, the bundle compiled from source with no code cache), but
// from an unminified bundle so that each frame names its module, and ending
// with process.exit (the profile is written at exit; the executable's _exit
// would skip it). The profile covers the JavaScript part of a start only (not
// Node's own start before it), its sample times are wall time (a busy machine
// stretches them) and the profiler adds its own cost: read the shares.
//
//   node bench/start-profile.ts
const RUNS = Number(process.env.PROFILE_RUNS ?? 10);
const SAMPLE_INTERVAL_US = 100;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** What each frame stands for in the breakdown: the phases of a start, by the function or module that does them. */
const PHASES: readonly (readonly [string, (frame: ProfileNode['callFrame']) => boolean])[] = [
  ['compile the bundle', (frame) => frame.functionName === 'Script' && frame.url === 'node:vm'],
  ['parse arguments (commander)', (frame) => frame.functionName === 'parseArgs'],
  ['evaluate the config modules (zod schemas, yaml)', (frame) => frame.functionName === 'src/config/load-plan.ts'],
  ['build the plan', (frame) => frame.functionName === 'loadPlan'],
  ['load the reaper addon', (frame) => frame.functionName === 'loadNativeProcessApi'],
  ['evaluate the logger modules (pino)', (frame) => frame.functionName === 'src/log/logger.ts'],
  ['build the logger', (frame) => frame.functionName === 'createLogger'],
  [
    'evaluate the supervision modules',
    (frame) =>
      /^src\/(runner|lifecycle|process|probes|hooks|externals|attempt|http|output|status|control|announce)\/[^.]+\.ts$/.test(
        frame.functionName,
      ),
  ],
  ['spawn the app', (frame) => frame.functionName === 'spawnProcess'],
  ['sweep and exit', (frame) => frame.functionName === 'sweepDescendants' || frame.functionName === 'exitProcess'],
  ['load Node built-in modules (child_process, net, streams…)', (frame) => frame.functionName === 'compileForInternalLoader'],
  ['garbage collection', (frame) => frame.functionName === '(garbage collector)'],
];

/** CPU ms per phase: each sample counts once, for the first phase found from the top of its stack. */
function attribute(profile: Profile): Map<string, number> {
  const parent = new Map<number, ProfileNode>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1_000;
    let phase = 'other (Node start and exit, our own code in between)';
    for (let node = byId.get(id); node !== undefined; node = parent.get(node.id)) {
      const found = PHASES.find(([, matches]) => matches(node.callFrame));
      if (found !== undefined) {
        phase = found[0];
        break;
      }
    }
    totals.set(phase, (totals.get(phase) ?? 0) + ms);
  });
  return totals;
}

const loader = (bundle: string) => `'use strict';
const source = require('node:fs').readFileSync(${JSON.stringify(bundle)}, 'utf8');
const script = new (require('node:vm').Script)('(function (exports, require, module, __filename, __dirname) {' + source + '\\n})', { filename: 'sidecar-init.cjs' });
const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, require, bundle, ${JSON.stringify(bundle)}, require('node:path').dirname(${JSON.stringify(bundle)}));
bundle.exports.main(process.argv.slice(2), process.env).then((code) => { process.exit(code); });
`;

export async function run(): Promise<void> {
  const { buildBundle } = await import(join(ROOT, 'scripts/build.mjs'));
  const { EXEC_ARGV } = await import(join(ROOT, 'scripts/build-binary.mjs'));
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-profile-'));
  try {
    const bundle = join(dir, 'sidecar-init.cjs');
    await buildBundle({ outfile: bundle, minify: false });
    cpSync(join(ROOT, 'dist/native'), join(dir, 'native'), { recursive: true });
    writeFileSync(join(dir, 'start.cjs'), loader(bundle));
    const node = (script: string, extra: readonly string[]) => {
      const argv = asPid1([NODE, ...EXEC_ARGV, ...extra, join(dir, script), '--log-level', 'warn', '--', 'true']);
      return spawnSync(argv[0]!, argv.slice(1), { stdio: 'inherit' });
    };
    const profiles = join(dir, 'profiles');
    for (let index = 0; index < RUNS; index += 1) {
      const result = node('start.cjs', ['--cpu-prof', `--cpu-prof-dir=${profiles}`, `--cpu-prof-interval=${SAMPLE_INTERVAL_US}`]);
      if (result.status !== 0) throw new Error(`the profiled start exited ${result.status}`);
    }
    const sums = new Map<string, number>();
    for (const file of readdirSync(profiles)) {
      for (const [phase, ms] of attribute(JSON.parse(readFileSync(join(profiles, file), 'utf8')) as Profile)) {
        sums.set(phase, (sums.get(phase) ?? 0) + ms);
      }
    }
    const total = [...sums.values()].reduce((sum, ms) => sum + ms, 0);
    console.log(`\nwhere \`-- true\` spends its CPU as PID 1 (V8 CPU profile, mean of ${RUNS} profiled starts, profiler included)`);
    for (const [phase, ms] of [...sums].sort((a, b) => b[1] - a[1])) {
      console.log(`  ${phase.padEnd(60)} ${(ms / RUNS).toFixed(1).padStart(6)} ms  ${((100 * ms) / total).toFixed(0).padStart(3)} %`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await run();

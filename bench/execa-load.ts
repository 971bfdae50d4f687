import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { median, NODE } from './measure.ts';

// What loading execa would cost every start, were it loaded there rather than
// with the first exec probe or hook (src/attempt/run-command.ts): execa bundled
// as scripts/build.mjs bundles it, evaluated by a Node that already has the
// built-in modules a running supervisor has loaded (child_process, streams),
// so the figure is execa's own. CPU time and resident memory added, against
// the same Node not loading it.
const RUNS = 9;
const LOADED_BEFORE = [
  'node:child_process',
  'node:stream',
  'node:events',
  'node:util',
  'node:fs',
  'node:path',
  'node:os',
  'node:url',
  'node:tty',
];

function script(bundle: string | undefined): string {
  return [
    ...LOADED_BEFORE.map((name) => `require(${JSON.stringify(name)});`),
    'const rss = process.memoryUsage().rss; const cpu = process.cpuUsage();',
    bundle === undefined ? '' : `require(${JSON.stringify(bundle)});`,
    'const used = process.cpuUsage(cpu);',
    'console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, rssMiB: (process.memoryUsage().rss - rss) / 1048576 }));',
  ].join('\n');
}

function measure(bundle: string | undefined): { cpuMs: number; rssMiB: number } {
  const result = spawnSync(NODE, ['-e', script(bundle)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`measuring execa's load failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as { cpuMs: number; rssMiB: number };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-execa-load-'));
  try {
    const bundle = join(dir, 'execa.cjs');
    await build({
      stdin: { contents: "module.exports = require('execa');", resolveDir: process.cwd() },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node22',
      minify: true,
      outfile: bundle,
      logLevel: 'error',
    });
    const loaded: { cpuMs: number; rssMiB: number }[] = [];
    const bare: { cpuMs: number; rssMiB: number }[] = [];
    for (let index = 0; index < RUNS; index += 1) {
      loaded.push(measure(bundle));
      bare.push(measure(undefined));
    }
    const cpu = median(loaded.map((sample) => sample.cpuMs)) - median(bare.map((sample) => sample.cpuMs));
    const rss = median(loaded.map((sample) => sample.rssMiB)) - median(bare.map((sample) => sample.rssMiB));
    console.log(`\nloading execa (bundled) in a Node that has child_process and streams loaded (median of ${RUNS})`);
    console.log(
      `  CPU ${cpu.toFixed(1).padStart(8)} ms   resident ${rss.toFixed(1).padStart(6)} MiB   (paid at the first exec probe or hook, not at start)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, NODE, SIDECAR_INIT } from './measure.ts';

// A config with thousands of processes: `plan --json` on a chain of sidecars
// (each after the one before), and a run whose first init step fails, timed
// to the exit. Both were quadratic (a transitive closure per process: 5 s and
// 490 MB for 10,000) or overflowed the stack (plan, from about 2,500); now one
// pass over the graph. tini and dumb-init: no equivalent.
const RUNS = 5;
const SIZES = [1_000, 10_000];

function chain(dir: string, count: number): string {
  const lines = ['processes:'];
  for (let index = 0; index < count; index += 1) {
    lines.push(`  - { name: s${index}, role: sidecar, command: "true"${index === 0 ? '' : `, after: [s${index - 1}]`} }`);
  }
  lines.push(`  - { name: app, role: app, command: "true", after: [s${count - 1}] }`);
  const config = join(dir, `chain-${count}.yaml`);
  writeFileSync(config, lines.join('\n'));
  return config;
}

function failingFirstStep(dir: string, count: number): string {
  const lines = ['processes:', '  - { name: s0, role: init, command: "false" }'];
  for (let index = 1; index < count; index += 1) lines.push(`  - { name: s${index}, role: init, command: "true" }`);
  lines.push('  - { name: app, role: app, command: "true" }');
  const config = join(dir, `steps-${count}.yaml`);
  writeFileSync(config, lines.join('\n'));
  return config;
}

/** Wall time in ms and peak resident memory in MiB of one run (GNU time's %M), which must exit `expected`. */
function measure(args: readonly string[], expected: number): { ms: number; mib: number } {
  const started = process.hrtime.bigint();
  const result = spawnSync('/usr/bin/time', ['-f', '%M', NODE, SIDECAR_INIT, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== expected) throw new Error(`sidecar-init ${args.join(' ')} exited ${result.status}: ${result.stderr.slice(-500)}`);
  return { ms, mib: Number(result.stderr.trim().split('\n').at(-1)) / 1024 };
}

export function run(): void {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-bench-'));
  console.log(`\nthousands of processes: whole command, start to exit (median of ${RUNS}; tini, dumb-init: no equivalent)`);
  for (const count of SIZES) {
    const scenarios = [
      { what: `plan --json, ${count} sidecars in a chain`, args: ['plan', '--json', '-c', chain(dir, count)], expected: 0 },
      {
        what: `run, ${count} init steps, the first fails`,
        args: ['--log-level', 'error', '-c', failingFirstStep(dir, count)],
        expected: 1,
      },
    ];
    for (const { what, args, expected } of scenarios) {
      const samples = Array.from({ length: RUNS }, () => measure(args, expected));
      const ms = median(samples.map((sample) => sample.ms));
      const mib = median(samples.map((sample) => sample.mib));
      console.log(`  ${what.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms ${mib.toFixed(0).padStart(6)} MiB`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

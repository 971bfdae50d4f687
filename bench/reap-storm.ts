import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTENDERS, median } from './measure.ts';
import { ratioFigure, recordFigure } from './summary.ts';

// As real PID 1: the app leaves ORPHANS orphans that each live up to a second
// and die over time, the way a process pool churns. What is measured is the
// CPU time of PID 1 itself (utime + stime of /proc/1/stat, read by the app once
// the storm is over), so the cost of reaping, not of making the orphans.
const STORMS = [4_000, 10_000];
const RUNS = Number(process.env.STORM_RUNS ?? 3);
const CLOCK_TICKS_PER_S = 100;
const STORM_GOAL_VS_TINI = 1.5;

// Each ( … &) subshell exits at once, re-parenting its `sleep` to PID 1, which
// then dies 0.0-0.9 s later. The app waits until no sleep is left, running or
// zombie (up to 10 s), before reading PID 1's CPU time.
const stormScript = (orphans: number, out: string): string => `
i=0
while [ $i -lt ${orphans} ]; do (sleep 0.$((i % 10)) &); i=$((i + 1)); done
tries=0
while pgrep -x sleep >/dev/null && [ $tries -lt 100 ]; do sleep 0.1; tries=$((tries + 1)); done
set -- $(sed 's/^.*) //' /proc/1/stat)
echo "$(( \${12} + \${13} ))" > ${out}
`;

/** PID 1's CPU time over one storm, in milliseconds. */
function stormCpuMs(argv: (app: readonly string[]) => string[], orphans: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-storm-'));
  try {
    const out = join(dir, 'cpu');
    const app = ['/bin/sh', '-c', stormScript(orphans, out)];
    const result = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', ...argv(app)], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (result.status !== 0) throw new Error(`storm under ${argv(app)[0]} exited ${result.status}: ${result.stderr}`);
    return (Number(readFileSync(out, 'utf8')) * 1_000) / CLOCK_TICKS_PER_S;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function run(): void {
  // What PID 1 spends with no orphans at all (for sidecar-init, Node's start):
  // the storm's own cost is the rest.
  const idle = new Map(
    CONTENDERS.map((contender) => [
      contender.name,
      median(Array.from({ length: RUNS }, () => stormCpuMs((app) => contender.argv(app), 0))),
    ]),
  );
  for (const orphans of STORMS) {
    const medians = new Map<string, number>();
    for (const contender of CONTENDERS) {
      const samples = Array.from({ length: RUNS }, () => stormCpuMs((app) => contender.argv(app), orphans));
      medians.set(contender.name, median(samples));
    }
    const tini = medians.get('tini') ?? 1;
    console.log(`\nas PID 1, ${orphans} orphans dying over ~1 s each: CPU time of PID 1 (median of ${RUNS})`);
    for (const [name, value] of medians) {
      console.log(`  ${name.padEnd(14)} ${value.toFixed(0).padStart(8)} ms   x${(value / tini).toFixed(2)} vs tini`);
    }
    const ours = medians.get('sidecar-init executable');
    if (orphans === STORMS[0] && ours !== undefined) {
      const what = `PID-1 CPU for ${orphans} staggered orphans, executable`;
      recordFigure(ratioFigure(what, `${ours.toFixed(0)} ms`, `tini ${tini.toFixed(0)} ms`, ours / tini, STORM_GOAL_VS_TINI, 'tini'));
    }
    const net = (name: string): number => (medians.get(name) ?? 0) - (idle.get(name) ?? 0);
    console.log(`  storm CPU ratio sidecar-init / tini: ${((medians.get('sidecar-init') ?? 0) / tini).toFixed(2)}`);
    console.log(
      `  without the cost of starting (sidecar-init ${idle.get('sidecar-init')?.toFixed(0)} ms, tini ${idle.get('tini')?.toFixed(0)} ms): ` +
        `x${(net('sidecar-init') / Math.max(net('tini'), 1)).toFixed(2)}`,
    );
  }
}

if (import.meta.main) run();

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, SIDECAR_INIT } from './measure.ts';

// What tini and dumb-init cannot do at all: hold the app until a sidecar says
// it is ready. Measures the time from a sidecar's "ready" log line to the
// app's start, through a log: readiness probe.
const RUNS = 5;

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-bench-'));
  const events = join(dir, 'events');
  const config = join(dir, 'log.yaml');
  writeFileSync(
    config,
    [
      'processes:',
      '  - name: db',
      '    role: sidecar',
      '    command: ["sh", "-c", "sleep 0.2; echo \\"$(date +%s%N) db said-ready $$\\" >> $EVENTS; echo ready to accept connections; exec sleep 60"]',
      '    readiness: { probe: "log:ready to accept connections" }',
      '  - name: app',
      '    role: app',
      '    command: ["sh", "-c", "echo \\"$(date +%s%N) app start $$\\" >> $EVENTS"]',
    ].join('\n'),
  );
  const latencies: number[] = [];
  for (let index = 0; index < RUNS; index += 1) {
    rmSync(events, { force: true });
    const result = spawnSync(process.execPath, [SIDECAR_INIT, '--log-level', 'warn', '-c', config], {
      env: { ...process.env, EVENTS: events },
      stdio: 'ignore',
    });
    if (result.status !== 0) throw new Error(`log readiness run exited ${result.status}`);
    const lines = readFileSync(events, 'utf8').split('\n');
    const at = (entry: string) => BigInt(lines.find((line) => line.includes(` ${entry} `))!.split(' ')[0]!);
    latencies.push(Number(at('app start') - at('db said-ready')) / 1e6);
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(`\n"ready" log line -> app start, log: probe (median of ${RUNS})`);
  console.log(`  sidecar-init   ${median(latencies).toFixed(2).padStart(10)} ms   (tini, dumb-init: no readiness gating)`);
}

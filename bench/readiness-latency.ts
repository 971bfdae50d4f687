import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, median, SIDECAR_INIT } from './measure.ts';

// What tini and dumb-init cannot do at all: hold the app until a sidecar's
// port opens. Measures the time from the port opening to the app's start.
const RUNS = 10;
const PROBE_PERIOD = '100ms';
const SERVER = fileURLToPath(new URL('../test/fixtures/tcp-server.mjs', import.meta.url));

export async function run(): Promise<void> {
  const latencies: number[] = [];
  for (let index = 0; index < RUNS; index += 1) {
    const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-bench-'));
    const events = join(dir, 'events');
    const port = await freePort();
    const app = `echo "$(date +%s%N) app start $$" >> ${events}`;
    const result = spawnSync(
      process.execPath,
      [
        SIDECAR_INIT,
        '--log-level',
        'warn',
        '--sidecar',
        `proxy=${process.execPath} ${SERVER} proxy ${port} 300`,
        '--ready',
        `proxy=tcp://127.0.0.1:${port}`,
        '--',
        'sh',
        '-c',
        app,
      ],
      { env: { ...process.env, EVENTS: events }, stdio: 'ignore' },
    );
    if (result.status !== 0) throw new Error(`readiness run exited ${result.status}`);
    const lines = readFileSync(events, 'utf8').split('\n');
    const at = (entry: string) => BigInt(lines.find((line) => line.includes(` ${entry} `))!.split(' ')[0]!);
    latencies.push(Number(at('app start') - at('proxy listening')) / 1e6);
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nport open -> app start through a tcp readiness probe (period ${PROBE_PERIOD}, median of ${RUNS})`);
  console.log(`  sidecar-init   ${median(latencies).toFixed(2).padStart(10)} ms   (tini, dumb-init: no readiness gating)`);
}

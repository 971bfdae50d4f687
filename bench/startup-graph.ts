import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, median, SIDECAR_INIT } from './measure.ts';

// Things tini and dumb-init cannot do at all, timed: three sidecars that each
// need 1s to open their port, started in list order and in parallel through `after: []`.
const RUNS = 5;
const WARMUP_MS = 1_000;
const SERVER = fileURLToPath(new URL('../test/fixtures/tcp-server.mjs', import.meta.url));

function appStartMs(config: string, events: string): number {
  const started = performance.timeOrigin + performance.now();
  const result = spawnSync(process.execPath, [SIDECAR_INIT, '--log-level', 'warn', '-c', config], {
    env: { ...process.env, EVENTS: events },
    stdio: 'ignore',
  });
  if (result.status !== 0) throw new Error(`startup-graph run exited ${result.status}`);
  const line = readFileSync(events, 'utf8')
    .split('\n')
    .find((entry) => entry.includes(' app start '))!;
  return Number(BigInt(line.split(' ')[0]!) / 1_000_000n) - started;
}

async function threeSidecars(dir: string, parallel: boolean): Promise<string> {
  const lines = ['processes:'];
  for (const name of ['s0', 's1', 's2']) {
    const port = await freePort();
    lines.push(
      `  - name: ${name}`,
      '    role: sidecar',
      `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(SERVER)}, ${name}, "${port}", "${WARMUP_MS}"]`,
      ...(parallel ? ['    after: []'] : []),
      `    readiness: { probe: "tcp://127.0.0.1:${port}" }`,
    );
  }
  lines.push('  - name: app', '    role: app', '    command: ["sh", "-c", "echo \\"$(date +%s%N) app start $$\\" >> $EVENTS"]');
  const config = join(dir, `three-${parallel}.yaml`);
  writeFileSync(config, lines.join('\n'));
  return config;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-bench-'));
  const events = join(dir, 'events');
  const sample = (measure: () => number) =>
    median(
      Array.from({ length: RUNS }, () => {
        rmSync(events, { force: true });
        return measure();
      }),
    );
  const sequential = await threeSidecars(dir, false);
  const parallel = await threeSidecars(dir, true);
  console.log(
    `\nstartup of three sidecars that each open their port after ${WARMUP_MS}ms (median of ${RUNS}; tini, dumb-init: no equivalent)`,
  );
  console.log(
    `  list order       ${sample(() => appStartMs(sequential, events))
      .toFixed(0)
      .padStart(8)} ms to the app's start`,
  );
  console.log(
    `  after: []        ${sample(() => appStartMs(parallel, events))
      .toFixed(0)
      .padStart(8)} ms to the app's start`,
  );
  rmSync(dir, { recursive: true, force: true });
}

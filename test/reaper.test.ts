// The reaper's contract exercised with real processes: as real PID 1 (in a new
// PID namespace), against a control that shows plain Node leaves zombies, and as
// an ordinary process that has to register as a subreaper.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Node 24 from node_modules: it strips types, so the harness runs src/ as is.
const NODE = join(ROOT, 'node_modules/.bin/node');
const HARNESS = join(ROOT, 'test/fixtures/reaper-harness.ts');
const BUILD_NATIVE = join(ROOT, 'scripts/build-native.mjs');
const ORPHANS = 150;
// Each `( … &)` subshell exits at once, orphaning its background child, which
// exits with 3: 150 zombies for whoever is PID 1 (or our subreaper).
const ORPHAN_MAKER = `for i in $(seq ${ORPHANS}); do (exit 3 &); done`;
const NEW_PID_NAMESPACE = ['--pid', '--fork', '--mount-proc', '--kill-child'];
// More zombies at once than one native pass reaps (child-watch.c's PASS_MAX, 1,024).
const BURST = 1_200;
// A pass that held the loop for the whole burst would show as several seconds here;
// a loaded 2-core machine alone delayed a timer 1.2 s while other tests ran.
const LOOP_GAP_BOUND_MS = 3_000;
const TAG_ENV = 'TEST_SIDECAR_INIT_TAG';
// The harness's own waits (test/fixtures/reaper-harness.ts), and above them, under
// the test timeout: liveness bounds for a loaded machine, not expectations.
const SETTLE_TIMEOUT_MS = 120_000;
const RUN_TIMEOUT_MS = 150_000;
const TEST_TIMEOUT_MS = 180_000;

// A PID 1 that never reaps: waits for the orphan maker, then until nothing but
// zombies is left (bounded by the harness's own wait, so a loaded machine does
// not cut it short with orphans still running), and counts them.
const NON_REAPING_PID1 = `
const { spawn } = require('node:child_process');
const { readFileSync, readdirSync, readlinkSync } = require('node:fs');
const states = () => readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n) && n !== '1').flatMap((n) => {
  try { const stat = readFileSync('/proc/' + n + '/stat', 'utf8'); return [stat[stat.lastIndexOf(')') + 2]]; } catch { return []; }
});
spawn('sh', ['-c', process.argv[1]], { stdio: 'ignore' }).on('exit', () => {
  const deadline = Date.now() + ${SETTLE_TIMEOUT_MS};
  const poll = () => {
    const left = states();
    if (left.some((s) => s !== 'Z') && Date.now() < deadline) return setTimeout(poll, 20);
    console.log(JSON.stringify({ pid: process.pid, pidNamespace: readlinkSync('/proc/self/ns/pid'), zombies: left.filter((s) => s === 'Z').length }));
  };
  poll();
});`;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let addonDir: string;
let tag: string;
const started = new Set<number>();

beforeAll(() => {
  // A private build, so a concurrent `npm run build` replacing dist/ cannot interfere.
  addonDir = mkdtempSync(join(tmpdir(), 'sidecar-init-native-'));
  execFileSync(NODE, [BUILD_NATIVE, join(addonDir, 'reaper.node')], { stdio: 'pipe' });
});

afterAll(() => rmSync(addonDir, { recursive: true, force: true }));

beforeEach(() => {
  tag = randomUUID();
});

afterEach(() => {
  // Everything a test starts inherits its tag through fork and exec, even
  // processes in another PID namespace or re-parented away from us.
  const survivors = [...new Set([...findTagged(tag), ...started])].filter((pid) => killIfAlive(pid));
  started.clear();
  expect(survivors, 'processes left running by the test').toEqual([]);
});

async function run(command: string, args: readonly string[]): Promise<Run> {
  const env = { ...process.env, [TAG_ENV]: tag, SIDECAR_INIT_NATIVE_ADDON: join(addonDir, 'reaper.node') };
  // SIGKILL reaches even a PID 1; killing unshare takes its namespace along (--kill-child).
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: RUN_TIMEOUT_MS, killSignal: 'SIGKILL' });
  const { pid } = child;
  if (pid !== undefined) {
    started.add(pid);
    // Once reaped its PID may be reused by anything; never kill it after that.
    child.once('exit', () => started.delete(pid));
  }
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

function parseResult(result: Run): Record<string, unknown> {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

function findTagged(value: string): number[] {
  const marker = `${TAG_ENV}=${value}\0`;
  return readdirSync('/proc')
    .filter((name) => /^[0-9]+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/environ`, 'latin1').includes(marker);
      } catch {
        return false; // gone, or a zombie (its environ reads as empty)
      }
    })
    .map(Number);
}

function killIfAlive(pid: number): boolean {
  try {
    process.kill(pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

function processesInPidNamespace(namespace: unknown): number[] {
  return readdirSync('/proc')
    .filter((name) => /^[0-9]+$/.test(name))
    .filter((name) => {
      try {
        return readlinkSync(`/proc/${name}/ns/pid`) === namespace;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('reaper as PID 1', { timeout: TEST_TIMEOUT_MS }, () => {
  test('reaps every orphan while libuv still gets its own children', async () => {
    const result = parseResult(await run('unshare', [...NEW_PID_NAMESPACE, NODE, HARNESS, 'orphans', ORPHAN_MAKER]));

    expect(result).toMatchObject({ pid: 1, mode: 'pid1', settled: true, zombiesLeft: 0 });
    expect(result.reaped).toBeGreaterThanOrEqual(ORPHANS);
    expect(result.statuses).toEqual({ 'exited 3': result.reaped });
    expect(result.ownChildExitCode).toBe(7);
    expect(result.makerExitCode).toBe(0);
    expect(processesInPidNamespace(result.pidNamespace)).toEqual([]);
  });

  test('reaps a burst of orphans that all exit at the same moment, a pass at a time, while its timers still run', async () => {
    // Each orphan waits for the end of one pipe (as fd 3: a background job's stdin would be /dev/null).
    // The pipe's writer blocks opening the FIFO $GATE until the maker opens it once all are made:
    // then the writer exits, its end closes, and they exit together (no polling for the gate).
    const burst = `{ read x <"$GATE"; } | { exec 3<&0; for i in $(seq ${BURST}); do ( (read x <&3; exit 5) & ); done; : >"$GATE"; }`;
    const gate = join(mkdtempSync(join(tmpdir(), 'sidecar-init-burst-')), 'go');
    try {
      execFileSync('mkfifo', [gate]);
      const result = parseResult(await run('unshare', [...NEW_PID_NAMESPACE, 'env', `GATE=${gate}`, NODE, HARNESS, 'orphans', burst]));
      expect(result).toMatchObject({ pid: 1, settled: true, zombiesLeft: 0, ownChildExitCode: 7, makerExitCode: 0 });
      expect(result.reaped).toBeGreaterThanOrEqual(BURST);
      expect(result.statuses).toEqual({ 'exited 5': result.reaped });
      // A liveness bound, generous for a loaded machine: no pass holds the loop for long.
      expect(result.maxLoopGapMs).toBeLessThan(LOOP_GAP_BOUND_MS);
      expect(processesInPidNamespace(result.pidNamespace)).toEqual([]);
    } finally {
      rmSync(dirname(gate), { recursive: true, force: true });
    }
  });

  test('control: a PID 1 that does not reap is left with the zombies', async () => {
    const result = parseResult(await run('unshare', [...NEW_PID_NAMESPACE, NODE, '-e', NON_REAPING_PID1, ORPHAN_MAKER]));

    expect(result.pid).toBe(1);
    expect(result.zombies).toBeGreaterThanOrEqual(ORPHANS);
    expect(processesInPidNamespace(result.pidNamespace)).toEqual([]);
  });
});

describe('reaper as subreaper', { timeout: TEST_TIMEOUT_MS }, () => {
  test('adopts a grandchild whose parent exited, and the sweep ends it', async () => {
    const result = parseResult(await run(NODE, [HARNESS, 'subreaper']));

    expect(result.mode).toBe('subreaper');
    expect(result.pid).not.toBe(1);
    expect(result.childExitCode).toBe(0);
    expect(result.grandchildren).toHaveLength(2);
    expect(result.adopted).toBe(true);
    expect(result.sweep).toEqual({ terminated: 1, killed: 1 });
    expect(result.survivors).toEqual([]);
  });
});

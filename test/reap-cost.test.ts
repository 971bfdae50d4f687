// Reaping costs O(zombies): a pass asks the kernel for our exited children
// instead of reading every process in /proc. And the log says how many were
// reaped at most once a second, not once per pass.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, shellJoin } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { runSupervisor } from './support/supervisor.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = join(ROOT, 'node_modules/.bin/node');
const HARNESS = join(ROOT, 'test/fixtures/reap-cost-harness.ts');
const { track, events: createEvents, expectNothingLeft } = useHarness();

let addonDir: string;
beforeAll(() => {
  // A private build, so a concurrent `npm run build` replacing dist/ cannot interfere.
  addonDir = mkdtempSync(join(tmpdir(), 'sidecar-init-native-'));
  execFileSync(NODE, [join(ROOT, 'scripts/build-native.mjs'), join(addonDir, 'reaper.node')], { stdio: 'pipe' });
});
afterAll(() => rmSync(addonDir, { recursive: true, force: true }));

describe('the reaper as PID 1', () => {
  it('reaps every orphan without listing /proc, and leaves libuv its own child', () => {
    const output = execFileSync('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', NODE, HARNESS, '300', '300'], {
      env: { ...process.env, SIDECAR_INIT_NATIVE_ADDON: join(addonDir, 'reaper.node') },
      encoding: 'utf8',
      timeout: 25_000,
    });
    const result = JSON.parse(output) as { pid: number; reaped: number; ownedCode: number | null; procScans: number };
    expect(result.pid).toBe(1);
    expect(result.reaped).toBe(300);
    expect(result.ownedCode).toBe(7);
    expect(result.procScans).toBe(0);
  });
});

describe('the reaped log line', () => {
  it('comes at most once a second with the count, however many orphans die', async () => {
    const events = createEvents();
    const orphans = 3_000;
    const app = shellJoin('/bin/sh', '-c', `${fixture('make-orphans.sh', String(orphans))} && ${fixture('count-zombies.sh', 'app')}`);
    const started = performance.now();
    const run = track(await runSupervisor(['--', '/bin/sh', '-c', app], { pid1: true, env: { EVENTS: events.file } }));
    const seconds = (performance.now() - started) / 1_000;
    expect(run.code).toBe(0);
    expect(events.sequence()).toEqual(['app zombies-0']);
    const lines = run.logs.filter((line) => line.event === 'reaped');
    expect(lines.reduce((sum, line) => sum + Number(line.count), 0)).toBeGreaterThanOrEqual(orphans);
    // One line when the first orphan dies, then at most one per second, and one at exit.
    expect(lines.length).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    await expectNothingLeft(run);
    // Making 3,000 orphans with a shell took over 30 s on a loaded 2-core machine; the
    // assertions above are relative to the run's own length, so only liveness is bounded here.
  }, 120_000);
});

// Churn must not grow the supervisor's memory: a sidecar that crash-loops with
// a 1 ms backoff used to double sidecar-init's RSS (V8's young generation
// growing to its maximum, not a leak). Measured over restarts rather than time;
// the bound is generous, the figures over minutes are in bench/churn-memory.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { FIXTURES, startSupervisor } from './support/supervisor.ts';

const { track, events: createEvents, expectNothingLeft } = useHarness();
const WARM_RESTARTS = 200;
const MEASURED_RESTARTS = 1_500;
const POLL_MS = 50;

function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]);
}

describe('a crash-looping sidecar', () => {
  it(`keeps the supervisor's RSS within 1.5x of its value after startup over ${MEASURED_RESTARTS} restarts`, {
    timeout: 300_000,
  }, async () => {
    const events = createEvents();
    const crasher = yamlArgv('/bin/sh', '-c', `. ${FIXTURES}record.sh; NAME=s; record start; exit 1`);
    const config = writeConfig(events.dir, [
      'grace: 1s',
      'processes:',
      '  - name: s',
      '    role: sidecar',
      `    command: ${crasher}`,
      '    restart: always',
      '    backoff: { initial: 1ms, max: 1ms }',
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv('sleep', '1000')}`,
    ]);
    const run = track(startSupervisor(['--log-level', 'warn', '-c', config], { env: { EVENTS: events.file } }));
    const pid = run.process.pid!;
    const restarts = (): number => events.read().length;
    const waitForRestarts = async (count: number): Promise<void> => {
      while (restarts() < count) {
        if (run.process.exitCode !== null) throw new Error(`supervisor exited; stderr:\n${run.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    };
    await waitForRestarts(WARM_RESTARTS);
    const afterStartup = rssKiB(pid);
    let highest = afterStartup;
    const target = WARM_RESTARTS + MEASURED_RESTARTS;
    while (restarts() < target) {
      await waitForRestarts(Math.min(restarts() + 100, target));
      highest = Math.max(highest, rssKiB(pid));
    }
    expect(highest / afterStartup).toBeLessThanOrEqual(1.5);
    run.process.kill('SIGTERM');
    expect((await run.exited).code).not.toBeNull();
    await expectNothingLeft(run);
  });
});

import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixture } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { runSupervisor } from './support/supervisor.ts';

// `sidecar-init plan`: the same inputs as a run, printed, nothing started.

const { track, events: createEvents, expectNothingLeft } = useHarness();

function writePlanConfig(dir: string): string {
  const config = `${dir}/plan.yaml`;
  writeFileSync(
    config,
    [
      'grace: 20s',
      'processes:',
      '  - name: db',
      '    role: sidecar',
      `    command: ${JSON.stringify(fixture('serve.sh', 'db'))}`,
      '    readiness: { probe: "tcp://127.0.0.1:1", periodAfterStart: 2s }',
      '  - name: cache',
      '    role: sidecar',
      `    command: ${JSON.stringify(fixture('serve.sh', 'cache'))}`,
      '    output: prefix',
      '  - name: migrate',
      '    role: init',
      `    command: ${JSON.stringify(fixture('exit-with.sh', 'migrate', '0'))}`,
      '    after: [db]',
      '  - name: job',
      '    role: app',
      `    command: ${JSON.stringify(fixture('exit-with.sh', 'job', '0'))}`,
      '    after: [migrate, cache]',
      '    stopSignal: SIGINT',
    ].join('\n'),
  );
  return config;
}

describe('sidecar-init plan', () => {
  it('prints the waves and each process as JSON, with the options of a run, and starts nothing', async () => {
    const events = createEvents();
    const config = writePlanConfig(events.dir);
    const run = track(
      await runSupervisor(['plan', '--json', '-c', config, '--grace', '15s', '--user', 'db=nobody'], { env: { EVENTS: events.file } }),
    );
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout());
    expect(plan.start).toEqual([['db', 'cache'], ['migrate'], ['job']]);
    expect(plan.stop).toEqual([['job'], ['db', 'cache']]);
    expect(plan.graceMs).toBe(15_000);
    expect(plan.processes.map((process: { name: string; role: string }) => `${process.name}:${process.role}`)).toEqual([
      'db:sidecar',
      'cache:sidecar',
      'migrate:init',
      'job:app',
    ]);
    expect(plan.processes[0].readiness).toMatchObject({ probe: 'tcp://127.0.0.1:1', periodAfterStartMs: 2_000 });
    expect(plan.processes[1].output).toBe('prefix');
    expect(plan.processes[0].user).toEqual({ uid: 65534, gid: 65534 });
    expect(plan.processes[1].user).toBeNull();
    expect(plan.processes[3]).toMatchObject({ stopSignal: 'SIGINT', restart: { policy: 'never' } });
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(run);
  });

  it('prints the same as text for a person', async () => {
    const events = createEvents();
    const config = writePlanConfig(events.dir);
    const run = track(await runSupervisor(['plan', '-c', config], { env: { EVENTS: events.file, SIDECAR_INIT_STATUS_ADDR: ':9901' } }));
    expect(run.code).toBe(0);
    expect(run.stdout()).toContain('start (each wave once the one before is ready or done):\n  1. db, cache\n  2. migrate\n  3. job\n');
    expect(run.stdout()).toContain('stop (each wave once the one before is down):\n  1. job\n  2. db, cache\n');
    expect(run.stdout()).toContain('grace budget: 20s');
    expect(run.stdout()).toContain('status server: http://[::]:9901');
    expect(run.stdout()).toContain('    readiness:  tcp://127.0.0.1:1 every 100ms, timeout 1s, deadline 1m; once started every 2s\n');
    expect(events.sequence()).toEqual([]);
  });

  it('reports a bad configuration like a run: exit 2, every problem', async () => {
    const events = createEvents();
    const run = track(await runSupervisor(['plan', '--output', 'loud', '--', 'true'], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(2);
    expect(run.stderr()).toContain('--output loud: "loud" is not an output mode; use inherit, prefix or json');
    expect(run.stdout()).toBe('');
  });
});

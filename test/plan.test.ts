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
    const run = track(await runSupervisor(['plan', '-c', config], { env: { EVENTS: events.file, SIDECAR_INIT_STATUS_ADDR: ':9797' } }));
    expect(run.code).toBe(0);
    expect(run.stdout()).toContain('start (each wave once the one before is ready or done):\n  1. db, cache\n  2. migrate\n  3. job\n');
    expect(run.stdout()).toContain('stop (each wave once the one before is down):\n  1. job\n  2. db, cache\n');
    expect(run.stdout()).toContain('grace budget: 20s');
    expect(run.stdout()).toContain('status server: http://[::]:9797');
    expect(run.stdout()).toContain('    readiness:  tcp://127.0.0.1:1 every 100ms, timeout 1s, deadline 1m; once started every 2s\n');
    expect(events.sequence()).toEqual([]);
  });

  it('reports a bad configuration like a run: exit 2, every problem', async () => {
    const events = createEvents();
    const run = track(await runSupervisor(['plan', '--output', 'loud', '--', 'true'], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(2);
    expect(run.stderr()).toContain('--output loud: "loud" is not an output mode; use inherit, prefix or json');
    expect(run.stdout()).toBe('');
    // plan and validate never start anything, so they do not say that nothing was started; a run does.
    expect(run.stderr()).toMatch(/^sidecar-init: 1 configuration problem; no plan to print:\n/);
    const checked = track(await runSupervisor(['validate', '--output', 'loud', '--', 'true'], { env: { EVENTS: events.file } }));
    expect(checked.stderr()).toMatch(/^sidecar-init: 1 configuration problem; the configuration is not valid:\n/);
    const ran = track(await runSupervisor(['--output', 'loud', '--', 'true'], { env: { EVENTS: events.file } }));
    expect(ran.stderr()).toMatch(/^sidecar-init: 1 configuration problem; nothing was started:\n/);
    expect([checked.code, ran.code]).toEqual([2, 2]);
  });

  it('plans 10,000 sidecars in a chain of after (plan, plan --json and validate agree), in linear time', { timeout: 120_000 }, async () => {
    // A recursive walk of the chain overflowed the stack from about 2,500
    // processes; the bound below is for liveness on a loaded machine, the
    // figure is in bench/plan-scale.ts.
    const events = createEvents();
    const config = writeChainConfig(events.dir, 10_000);
    for (const args of [
      ['plan', '--json', '-c', config],
      ['plan', '-c', config],
      ['validate', '-c', config],
    ]) {
      const started = performance.now();
      const run = track(await runSupervisor(args, { env: { EVENTS: events.file } }));
      expect(performance.now() - started).toBeLessThan(30_000);
      expect(run.stderr()).toBe('');
      expect(run.code).toBe(0);
      if (args[1] === '--json') {
        const plan = JSON.parse(run.stdout());
        expect(plan.start).toHaveLength(10_001);
        expect(plan.start[0]).toEqual(['s0']);
        expect(plan.start.at(-1)).toEqual(['app']);
        expect(plan.stop).toHaveLength(10_001);
        expect(plan.stop[0]).toEqual(['app']);
        expect(plan.stop.at(-1)).toEqual(['s0']);
      }
    }
    expect(events.sequence()).toEqual([]);
  });
});

describe('a run with 10,000 processes', () => {
  it('gets to its first step and ends on its failure within seconds, not minutes', { timeout: 120_000 }, async () => {
    const events = createEvents();
    const config = `${events.dir}/many.yaml`;
    const lines = ['processes:', `  - { name: first, role: init, command: ${JSON.stringify(fixture('exit-with.sh', 'first', '3'))} }`];
    for (let index = 1; index < 10_000; index += 1) lines.push(`  - { name: s${index}, role: init, command: "true" }`);
    lines.push(`  - { name: app, role: app, command: ${JSON.stringify(fixture('exit-with.sh', 'app', '0'))} }`);
    writeFileSync(config, lines.join('\n'));
    const started = performance.now();
    // A transitive closure per process needed 490 MB for this (it ran out of a 256 MB heap); one pass over
    // the graph fits in 64 MB. The heap limit and the time bound are generous; the figures are in bench/plan-scale.ts.
    const env = { EVENTS: events.file, NODE_OPTIONS: '--max-old-space-size=256' };
    const run = track(await runSupervisor(['--log-level', 'warn', '-c', config], { env }));
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(run.code).toBe(3);
    expect(events.sequence()).toEqual(['first start', 'first exit-3']);
    await expectNothingLeft(run);
  });
});

/** `count` sidecars, each after the one before, and an app after the last. */
function writeChainConfig(dir: string, count: number): string {
  const config = `${dir}/chain.yaml`;
  const lines = ['processes:'];
  for (let index = 0; index < count; index += 1) {
    lines.push(`  - { name: s${index}, role: sidecar, command: "true"${index === 0 ? '' : `, after: [s${index - 1}]`} }`);
  }
  lines.push(`  - { name: app, role: app, command: "true", after: [s${count - 1}] }`);
  writeFileSync(config, lines.join('\n'));
  return config;
}

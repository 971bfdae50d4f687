import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixture, fixtureArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { runSupervisor } from './support/supervisor.ts';

// Bad input: a clear error naming file, line and field, exit 2, nothing spawned.

const { track, events: createEvents, expectNothingLeft } = useHarness();

describe('configuration errors', () => {
  it('lists every problem with file, line and field, exits 2 and spawns nothing', async () => {
    const events = createEvents();
    const config = `${events.dir}/bad.yaml`;
    writeFileSync(
      config,
      [
        'grace: 5x',
        'processes:',
        '  - name: proxy',
        '    role: sidecar',
        `    command: ${JSON.stringify(fixture('serve.sh', 'proxy'))}`,
        '    readines:',
        '      probe: tcp://127.0.0.1:1',
        '  - name: job',
        '    role: app',
        `    command: ${JSON.stringify(fixture('exit-with.sh', 'job', '0'))}`,
      ].join('\n'),
    );
    const run = track(await runSupervisor(['-c', config, '--ready', 'job=tcp://127.0.0.1:1'], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(2);
    expect(run.stderr()).toContain(`${config}:1:1 grace: "5x" is not a duration`);
    expect(run.stderr()).toContain(`${config}:6:5 processes[0].readines: unknown key "readines" (did you mean readiness?)`);
    expect(run.stderr()).toContain('--ready job=tcp://127.0.0.1:1: ');
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(run);
  });

  it('reports a YAML syntax error with its line', async () => {
    const events = createEvents();
    const config = `${events.dir}/broken.yaml`;
    writeFileSync(config, 'processes:\n  - name: a\n    command: [unclosed\n');
    const run = track(
      await runSupervisor(['-c', config, '--', ...fixtureArgv('exit-with.sh', 'app', '0')], { env: { EVENTS: events.file } }),
    );
    expect(run.code).toBe(2);
    expect(run.stderr()).toMatch(new RegExp(`${config}:\\d+:\\d+`));
    expect(events.sequence()).toEqual([]);
  });

  it('rejects an unknown option with exit 2 before starting anything', async () => {
    const events = createEvents();
    const run = track(
      await runSupervisor(['--sidecars', 'x=true', '--', ...fixtureArgv('exit-with.sh', 'app', '0')], { env: { EVENTS: events.file } }),
    );
    expect(run.code).toBe(2);
    expect(run.stderr()).toContain("unknown option '--sidecars'");
    expect(events.sequence()).toEqual([]);
  });
});

describe('validate', () => {
  it('accepts the demo configuration without starting anything', async () => {
    const run = track(await runSupervisor(['validate', '-c', 'examples/demo.yaml']));
    expect(run.code).toBe(0);
    expect(run.stdout()).toContain('examples/demo.yaml: valid');
    expect(run.logs).toEqual([]);
  });

  it('exits 2 listing the problems of a bad file', async () => {
    const events = createEvents();
    const config = `${events.dir}/bad.yaml`;
    writeFileSync(config, 'processes:\n  - name: Bad_Name\n    role: app\n    command: "true"\n');
    const run = track(await runSupervisor(['validate', '-c', config]));
    expect(run.code).toBe(2);
    expect(run.stderr()).toContain(`${config}:2:5 processes[0].name: "Bad_Name" is not a valid name`);
  });
});

describe('internal failures', () => {
  it('exits 1 with a way to fix it when the native reaper cannot load, before starting anything', async () => {
    const events = createEvents();
    const run = track(
      await runSupervisor(['--', ...fixtureArgv('exit-with.sh', 'app', '0')], {
        env: { EVENTS: events.file, SIDECAR_INIT_NATIVE_ADDON: `${events.dir}/missing.node` },
      }),
    );
    expect(run.code).toBe(1);
    expect(run.logs.find((line) => line.event === 'internal-error')?.msg).toContain('sidecar-init failed');
    expect(run.stderr()).toContain('npm run build');
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(run);
  });
});

describe('documentation', () => {
  it('every YAML example in the README is a valid configuration', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThan(0);
    for (const [index, block] of blocks.entries()) {
      const events = createEvents();
      const config = `${events.dir}/readme-${index}.yaml`;
      writeFileSync(config, block);
      const run = track(await runSupervisor(['validate', '-c', config]));
      expect(run.stderr()).toBe('');
      expect(run.code).toBe(0);
    }
  });
});

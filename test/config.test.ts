import { execFileSync, spawnSync } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixture, fixtureArgv } from './support/commands.ts';
import { docPages, fencedBlocks, readPage } from './support/docs.ts';
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

describe('bad input refused before anything starts', () => {
  /** The app that would run if the config were accepted: it records that it started. */
  const app = (name: string) => fixture('exit-with.sh', name, '0');

  it('refuses a NUL byte in a command, an argument or a cwd at its field, exits 2 and spawns nothing', async () => {
    const events = createEvents();
    const config = `${events.dir}/nul.yaml`;
    writeFileSync(
      config,
      [
        'processes:',
        '  - name: proxy',
        '    role: sidecar',
        `    command: ${JSON.stringify(fixture('serve.sh', 'proxy'))}`,
        '    cwd: "/tmp\\0"',
        '  - name: job',
        '    role: app',
        `    command: [${JSON.stringify(app('job'))}, "a\\0b"]`,
      ].join('\n'),
    );
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(2);
    expect(run.stderr()).toContain(`${config}:5:5 processes[0].cwd: has a NUL character, which no directory name can hold`);
    expect(run.stderr()).toContain(`${config}:8:5 processes[1].command: argument 1 has a NUL character, which no command line can hold`);
    expect(run.stderr()).not.toContain('internal');
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(run);
  });

  it('reads only a regular file of at most 1 MiB: /dev/zero, a FIFO without a writer and a 2 MiB file are refused at once', async () => {
    const events = createEvents();
    const fifo = `${events.dir}/config.fifo`;
    execFileSync('mkfifo', [fifo]);
    const huge = `${events.dir}/huge.yaml`;
    writeFileSync(huge, '');
    truncateSync(huge, 2 * 1024 * 1024);
    for (const [config, reason] of [
      ['/dev/zero', 'not a regular file'],
      [fifo, 'not a regular file'],
      [huge, 'larger than 1 MiB'],
      [events.dir, 'is a directory'],
    ] as const) {
      const run = track(
        await runSupervisor(['-c', config, '--', ...fixtureArgv('exit-with.sh', 'app', '0')], { env: { EVENTS: events.file } }),
      );
      expect(run.code).toBe(2);
      expect(run.stderr()).toContain(`${config}: cannot read the config file: ${reason}`);
    }
    expect(events.sequence()).toEqual([]);
  });

  it('lists the first 50 of 100,000 unknown keys and counts the rest, in linear time', { timeout: 120_000 }, async () => {
    const events = createEvents();
    const config = `${events.dir}/keys.yaml`;
    const keys = Array.from({ length: 100_000 }, (_, index) => `k${index}: 1`);
    // Just under the 1 MiB a config file may have.
    writeFileSync(config, ['processes: [{ name: job, role: app, command: "true" }]', ...keys].join('\n'));
    // Quadratic work took minutes here; a generous bound still tells the two apart on a loaded machine.
    const started = performance.now();
    const run = track(await runSupervisor(['validate', '-c', config]));
    expect(performance.now() - started).toBeLessThan(60_000);
    expect(run.code).toBe(2);
    const lines = run.stderr().trimEnd().split('\n');
    expect(lines[0]).toBe('sidecar-init: 100000 configuration problems; the configuration is not valid:');
    expect(lines[1]).toBe(
      `  ${config}:2:1 k0: unknown key "k0"; accepted here: grace, logLevel, logFormat, statusAddr, terminationLog, control, announce, until, announcerUid, output, drain, rewrite, singleChild, parentDeathSignal, processes`,
    );
    expect(lines.slice(1, -1)).toHaveLength(50);
    expect(lines.at(-1)).toBe('  ... and 99950 more');
  });

  it('refuses signals that can never be forwarded or stop a process, and a drain that is a malformed duration', async () => {
    const events = createEvents();
    const run = track(
      await runSupervisor(
        [
          '--rewrite',
          'SIGCHLD:SIGTERM',
          '--stop-signal',
          'app=SIGCHLD',
          '--drain',
          '-1s',
          '--',
          ...fixtureArgv('exit-with.sh', 'app', '0'),
        ],
        { env: { EVENTS: events.file } },
      ),
    );
    expect(run.code).toBe(2);
    expect(run.stderr()).toContain('--rewrite SIGCHLD:SIGTERM: SIGCHLD tells sidecar-init that a process exited and is never passed on');
    expect(run.stderr()).toContain('--stop-signal app=SIGCHLD: SIGCHLD is ignored unless handled');
    expect(run.stderr()).toContain('--drain -1s: "-1s" is not a duration');
    expect(events.sequence()).toEqual([]);
  });
});

describe('misspelled environment options', () => {
  it('refuse an unknown SIDECAR_INIT_* name as they refuse an unknown key: exit 2, the closest name, nothing started', async () => {
    const events = createEvents();
    const app = fixtureArgv('exit-with.sh', 'app', '0');
    const run = track(await runSupervisor(['--', ...app], { env: { EVENTS: events.file, SIDECAR_INIT_GRACES: '1s' } }));
    expect(run.code).toBe(2);
    expect(run.stderr()).toMatch(
      /^sidecar-init: SIDECAR_INIT_GRACES is not a variable sidecar-init reads \(did you mean SIDECAR_INIT_GRACE\?\)/,
    );
    const checked = track(await runSupervisor(['validate', '-c', 'examples/demo.yaml'], { env: { SIDECAR_INIT_SIDECAR: 'x=y' } }));
    expect(checked.code).toBe(2);
    expect(checked.stderr()).toMatch(/^sidecar-init: SIDECAR_INIT_SIDECAR is not a variable sidecar-init reads; /);
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(run);
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

describe('validate without a file', () => {
  it('checks a command line alone, as a manifest or the webhook gives it: exit 0 when valid, 2 with the flag when not', async () => {
    const valid = track(await runSupervisor(['validate', '--external', 'mesh=istio', '--ready', 'mesh=deadline=2m', '--', './report']));
    expect(valid.stderr()).toBe('');
    expect(valid.code).toBe(0);
    expect(valid.stdout()).toMatch(/^the command line: valid \(/);
    const invalid = track(
      await runSupervisor(['validate', '--sidecar', 'proxy=envoy', '--ready', 'proxy=tcp://127.0.0.1', '--', './report']),
    );
    expect(invalid.code).toBe(2);
    expect(invalid.stderr()).toContain('--ready proxy=tcp://127.0.0.1: "tcp://127.0.0.1" has no port');
    expect(invalid.logs).toEqual([]);
  });
});

describe('a command after options', () => {
  it("is refused with the fix, not run as the app in place of the file's: exit 2, nothing started", async () => {
    const events = createEvents();
    const config = `${events.dir}/job.yaml`;
    writeFileSync(
      config,
      [
        'processes:',
        `  - { name: proxy, role: sidecar, command: ${JSON.stringify(fixture('serve.sh', 'proxy'))} }`,
        `  - { name: job, role: app, command: ${JSON.stringify(fixture('exit-with.sh', 'job', '0'))} }`,
      ].join('\n'),
    );
    const run = track(await runSupervisor(['-c', config, 'ctl', 'status'], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(2);
    expect(run.stderr()).toContain(`put -- before it: sidecar-init -c ${config} -- ctl status`);
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(run);
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
    // One line naming the file and the fix: no stack trace, no JSON.
    expect(run.stderr()).toMatch(/^sidecar-init: SIDECAR_INIT_NATIVE_ADDON=\S+missing\.node: no such file; .*npm run build.*\n$/);
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(run);
  });

  it('reports an error nothing expected in one line naming it, exit 70, never the source around it', async () => {
    // No input reaches a bug on purpose any more (the stack overflow of a plan with 2,500
    // processes was one), so the bundle's main() is handed an environment that throws.
    const script = [
      'const { main } = require(process.argv[1]);',
      "const env = new Proxy({}, { get() { throw new RangeError('Maximum call stack size exceeded'); } });",
      "main(['plan', '--', 'true'], env).then((code) => process.exit(code));",
    ].join('\n');
    const bundle = fileURLToPath(new URL('../dist/sidecar-init.cjs', import.meta.url));
    const result = spawnSync(process.execPath, ['-e', script, bundle], { encoding: 'utf8' });
    expect(result.status).toBe(70);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^sidecar-init: internal error \(a bug in sidecar-init; please report it\): RangeError: Maximum call stack size exceeded \(in [^\n]+\)\n$/,
    );
  });
});

describe('the YAML examples in README.md and docs/', () => {
  // Kubernetes manifests (apiVersion:) show where sidecar-init goes; test/examples-k8s.test.ts checks them.
  const blocks = docPages().flatMap((page) =>
    fencedBlocks(readPage(page))
      .filter((block) => block.lang === 'yaml' && !/^apiVersion:/m.test(block.body))
      .map((block) => ({ at: `${page}:${block.line}`, body: block.body })),
  );

  it('are there: the reference, the probes, the externals', () => {
    expect(blocks.map((block) => block.at)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^docs\/configuration\.md:/),
        expect.stringMatching(/^docs\/probes\.md:/),
        expect.stringMatching(/^docs\/externals\.md:/),
      ]),
    );
  });

  it.each(blocks)('$at is a valid configuration', async ({ at, body }) => {
    const events = createEvents();
    const config = `${events.dir}/${at.replaceAll(/[/:]/g, '-')}.yaml`;
    writeFileSync(config, body);
    const run = track(await runSupervisor(['validate', '-c', config]));
    expect(run.stderr()).toBe('');
    expect(run.code).toBe(0);
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixture, fixtureArgv, writeConfig } from './support/commands.ts';
import { blockAttributes, docPages, fencedBlocks, readPage } from './support/docs.ts';
import { useHarness } from './support/harness.ts';
import { runSupervisor } from './support/supervisor.ts';
import { besidesMissingPrograms, CHECKED_AGAIN } from './support/validate-output.ts';

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

describe('a name chosen from a list', () => {
  // Each list sidecar-init takes a name from answers a typo with the closest
  // name, at its line and field, and starts nothing (the app would record).
  const app = (extra: readonly string[] = []) => [
    '  - name: app',
    '    role: app',
    `    command: ${JSON.stringify(fixture('exit-with.sh', 'app', '0'))}`,
    ...extra,
  ];
  const cases: readonly { list: string; lines: readonly string[]; flags?: readonly string[]; problem: string }[] = [
    {
      list: 'a stop signal',
      lines: app(['    stopSignal: SIGKIL']),
      problem: '5:5 processes[0].stopSignal: "SIGKIL" is not a signal (did you mean SIGKILL?)',
    },
    {
      list: 'a role',
      lines: ['  - name: app', '    role: ap', '    command: "true"'],
      problem: '3:5 processes[0].role: "ap" is not accepted (did you mean app?)',
    },
    {
      list: 'a preset',
      lines: ['  - name: mesh', '    role: external', '    preset: istoi', ...app()],
      problem: '4:5 processes[0].preset: "istoi" is not accepted (did you mean istio?)',
    },
    {
      list: 'a probe kind',
      lines: ['  - name: proxy', '    role: sidecar', '    command: "true"', '    readiness: { probe: notfy }', ...app()],
      problem: '5:18 processes[0].readiness.probe: "notfy" is not a probe (did you mean notify?)',
    },
    {
      list: 'a restart policy',
      lines: app(['    restart: alwyas']),
      problem: '5:5 processes[0].restart: "alwyas" is not accepted (did you mean always?)',
    },
    {
      list: 'an output mode',
      lines: app(['    output: prefx']),
      problem: '5:5 processes[0].output: "prefx" is not an output mode (did you mean prefix?)',
    },
  ];

  it.each(cases)('$list in the file: the closest name at its line and field, exit 2, nothing started', async ({ lines, problem }) => {
    const events = createEvents();
    const config = writeConfig(events.dir, ['processes:', ...lines]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(2);
    expect(run.stderr()).toContain(`  ${config}:${problem}; use `);
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(run);
  });

  it('a signal, a preset, a probe kind, a policy and a level on the command line: the closest name at its flag', async () => {
    const events = createEvents();
    const flags = ['--rewrite', 'SIGTREM:SIGQUIT', '--external', 'mesh=istoi', '--sidecar', 'proxy=true', '--ready', 'proxy=notfy'];
    const more = ['--restart', 'app=alwyas', '--log-level', 'inf', '--', ...fixtureArgv('exit-with.sh', 'app', '0')];
    const run = track(await runSupervisor([...flags, ...more], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(2);
    for (const problem of [
      '--rewrite SIGTREM:SIGQUIT: "SIGTREM" is not a signal (did you mean SIGTERM?); ',
      '--external mesh=istoi: "istoi" is neither a preset nor a matcher (did you mean istio?); ',
      '--ready proxy=notfy: "notfy" is not a probe (did you mean notify?); ',
      '--restart app=alwyas: "alwyas" is not a restart policy (did you mean always?); ',
      '--log-level inf: "inf" is not a log level (did you mean info?); ',
    ]) {
      expect(run.stderr()).toContain(`  ${problem}`);
    }
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(run);
  });
});

describe('a YAML syntax error', () => {
  // The parser names the rule a line broke; the message adds the usual slip behind it.
  const cases = [
    {
      slip: 'a tab',
      text: 'processes:\n\t- name: app\n',
      problem: '2:1: invalid YAML: Tabs are not allowed as indentation; replace the tab that indents this line with spaces',
    },
    {
      slip: 'a missing "-"',
      text: 'processes:\n  - name: app\n   role: app\n',
      problem:
        '3:1: invalid YAML: Sequence item without - indicator; a list item begins with "- "; if this line belongs to the item above, indent it',
    },
    {
      slip: 'an indentation a space off',
      text: 'processes:\n  - name: app\n     role: app\n',
      problem:
        '2:11: invalid YAML: Nested mappings are not allowed in compact mappings; likely an indentation slip: the keys of one mapping',
    },
    {
      slip: 'a key indented less than its siblings',
      text: 'processes:\n  - name: app\n  role: app\n',
      problem: '3:1: invalid YAML: All mapping items must start at the same column; likely an indentation slip',
    },
  ];

  it.each(cases)('from $slip says the likely cause in plain words, at its line: exit 2, nothing started', async ({ text, problem }) => {
    const events = createEvents();
    const config = `${events.dir}/broken.yaml`;
    writeFileSync(config, text);
    const run = track(
      await runSupervisor(['-c', config, '--', ...fixtureArgv('exit-with.sh', 'app', '0')], { env: { EVENTS: events.file } }),
    );
    expect(run.code).toBe(2);
    expect(run.stderr()).toContain(`  ${config}:${problem}`);
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(run);
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

describe('validate and the programs a run would start', () => {
  // Real files: a program that is not there, a file without its execute bit,
  // and a program found through the process's own PATH, as the run resolves it.
  const writeTree = (dir: string) => {
    mkdirSync(`${dir}/bin`);
    writeFileSync(`${dir}/bin/found-here`, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    writeFileSync(`${dir}/not-executable`, '#!/bin/sh\nexit 0\n', { mode: 0o644 });
    return writeConfig(dir, [
      'processes:',
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${dir}/envoyx -c /etc/envoy.yaml`,
      `    preStop: { exec: [${JSON.stringify(`${dir}/not-executable`)}] }`,
      '  - name: job',
      '    role: app',
      '    command: found-here',
      `    env: { PATH: ${JSON.stringify(`${dir}/bin`)} }`,
    ]);
  };
  const missing = (dir: string, config: string) =>
    `${config}:4:5 processes[0].command: ${dir}/envoyx: no such file (looked for ${dir}/envoyx)`;
  const notExecutable = (dir: string, config: string) =>
    `${config}:5:5 processes[0].preStop: cannot execute ${dir}/not-executable: no execute permission`;

  it('warns of each one missing here, says it is checked again at start, and finds the config valid', async () => {
    const events = createEvents();
    const config = writeTree(events.dir);
    const run = track(await runSupervisor(['validate', '-c', config]));
    expect(run.code).toBe(0);
    expect(run.stdout()).toBe(`${config}: valid (0 init steps, 1 sidecar, app job)\n`);
    const again = CHECKED_AGAIN;
    expect(run.stderr()).toBe(
      [
        `sidecar-init: warning: ${missing(events.dir, config)}${again}`,
        `sidecar-init: warning: ${notExecutable(events.dir, config)}${again}`,
        '',
      ].join('\n'),
    );
    expect(events.sequence()).toEqual([]);
  });

  it('with --programs, makes each one an error at its line and field: exit 2, the one found on PATH not named', async () => {
    const events = createEvents();
    const config = writeTree(events.dir);
    const run = track(await runSupervisor(['validate', '--programs', '-c', config]));
    expect(run.code).toBe(2);
    expect(run.stderr()).toBe(
      [
        'sidecar-init: 2 configuration problems; the configuration is not valid:',
        `  ${missing(events.dir, config)}`,
        `  ${notExecutable(events.dir, config)}`,
        '',
      ].join('\n'),
    );
    expect(run.stdout()).toBe('');
    // What validate found missing, the run refuses with the same words at that process's turn.
    const started = track(await runSupervisor(['-c', config]));
    expect(started.code).toBe(127);
    expect(started.stderr() + JSON.stringify(started.logs)).toContain(`${events.dir}/envoyx: no such file`);
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(started);
  });

  it('with --programs, checks the app and an exec probe given on the command line, at their flags', async () => {
    const ok = track(await runSupervisor(['validate', '--programs', '--', 'sh', '-c', 'true']));
    expect(ok.code).toBe(0);
    expect(ok.stderr()).toBe('');
    const bad = track(
      await runSupervisor([
        'validate',
        '--programs',
        '--sidecar',
        'proxy=true',
        '--ready',
        'proxy=exec:no-such-check',
        '--',
        'no-such-app',
      ]),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr()).toMatch(/^ {2}--ready proxy=exec:no-such-check: no-such-check: command not found in PATH \(PATH=/m);
    expect(bad.stderr()).toMatch(/^ {2}-- no-such-app: no-such-app: command not found in PATH \(PATH=/m);
  });
});

describe('validate without a file', () => {
  it('checks a command line alone, as a manifest or the webhook gives it: exit 0 when valid, 2 with the flag when not', async () => {
    const valid = track(await runSupervisor(['validate', '--external', 'mesh=istio', '--ready', 'mesh=deadline=2m', '--', './report']));
    // ./report is the image's, not this machine's.
    expect(valid.stderr()).toBe(
      `sidecar-init: warning: -- ./report: ./report: no such file (looked for ${process.cwd()}/report)${CHECKED_AGAIN}\n`,
    );
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
  // A block marked `invalid` is wrong on purpose: test/docs-output.test.ts checks the errors the page shows for it.
  const blocks = docPages().flatMap((page) =>
    fencedBlocks(readPage(page))
      .filter((block) => block.lang === 'yaml' && !/^apiVersion:/m.test(block.body) && !('invalid' in blockAttributes(block)))
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
    // Its programs are the image's (envoy, a job): only the warnings that they are not on this machine.
    expect(besidesMissingPrograms(run.stderr())).toEqual([]);
    expect(run.code).toBe(0);
  });
});

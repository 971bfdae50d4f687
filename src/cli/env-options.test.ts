import { describe, expect, it } from 'vitest';
import { load, problemsOf } from '../../test/support/config.ts';
import { parseArgs } from './parse-args.ts';

const FILE = `
  grace: 30s
  logLevel: warn
  output: json
  statusAddr: 127.0.0.1:9000
  processes:
    - name: proxy
      role: sidecar
      command: envoy
      output: inherit
    - name: job
      role: app
      command: job
`;

/** The plan a run would use, from argv and env, with FILE as the config file. */
function planOf(argv: string[], env: NodeJS.ProcessEnv) {
  const command = parseArgs(argv, env);
  if (command.kind !== 'run') throw new Error(`expected a run, got ${JSON.stringify(command)}`);
  return load({ yaml: FILE, cli: command.cli });
}

describe('SIDECAR_INIT_<OPTION>', () => {
  it('is used where no flag is given, over the file', () => {
    const plan = planOf([], {
      SIDECAR_INIT_GRACE: '10s',
      SIDECAR_INIT_LOG_LEVEL: 'debug',
      SIDECAR_INIT_LOG_FORMAT: 'text',
      SIDECAR_INIT_STATUS_ADDR: ':9797',
      SIDECAR_INIT_OUTPUT: 'prefix',
      SIDECAR_INIT_DRAIN: '3s',
      SIDECAR_INIT_REWRITE: 'SIGTERM:SIGQUIT, SIGHUP:none',
      SIDECAR_INIT_SINGLE_CHILD: 'true',
      SIDECAR_INIT_SUCCESS_CODE: '143,130',
    });
    expect(plan).toMatchObject({
      graceMs: 10_000,
      logLevel: 'debug',
      logFormat: 'text',
      statusAddr: { host: '::', port: 9797 },
      drain: { kind: 'delay', ms: 3_000 },
      rewrite: { SIGTERM: 'SIGQUIT', SIGHUP: null },
    });
    // A process's own output wins over every default.
    expect(plan.processes.map((process) => [process.name, process.output, process.signalTarget])).toEqual([
      ['proxy', 'inherit', 'process'],
      ['job', 'prefix', 'process'],
    ]);
    expect(plan.processes[1]?.successCodes).toEqual([143, 130]);
  });

  it('loses to the flag', () => {
    const plan = planOf(['--grace', '5s', '--output', 'inherit', '--status-addr', '127.0.0.1:0', '--rewrite', 'SIGINT:SIGTERM'], {
      SIDECAR_INIT_GRACE: '10s',
      SIDECAR_INIT_OUTPUT: 'prefix',
      SIDECAR_INIT_STATUS_ADDR: ':9797',
      SIDECAR_INIT_REWRITE: 'SIGTERM:SIGQUIT',
    });
    expect(plan.graceMs).toBe(5_000);
    expect(plan.statusAddr).toEqual({ host: '127.0.0.1', port: 0 });
    expect(plan.rewrite).toEqual({ SIGINT: 'SIGTERM' });
    expect(plan.processes.map((process) => process.output)).toEqual(['inherit', 'inherit']);
  });

  it('counts as not set when empty, leaving the file its say', () => {
    const plan = planOf([], { SIDECAR_INIT_GRACE: '', SIDECAR_INIT_OUTPUT: '' });
    expect(plan.graceMs).toBe(30_000);
    expect(plan.logLevel).toBe('warn');
    expect(plan.statusAddr).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(plan.processes.map((process) => process.output)).toEqual(['inherit', 'json']);
  });

  it('names the variable when its value is wrong', () => {
    const command = parseArgs([], { SIDECAR_INIT_GRACE: '5x', SIDECAR_INIT_OUTPUT: 'colour', SIDECAR_INIT_STATUS_ADDR: '9797' });
    if (command.kind !== 'run') throw new Error('expected a run');
    expect(problemsOf({ yaml: FILE, cli: command.cli })).toEqual([
      expect.stringMatching(/^SIDECAR_INIT_GRACE 5x: "5x" is not a duration/),
      'SIDECAR_INIT_STATUS_ADDR 9797: "9797" has no port; use HOST:PORT, e.g. 0.0.0.0:9797, 127.0.0.1:9797, [::]:9797 or :9797',
      'SIDECAR_INIT_OUTPUT colour: "colour" is not an output mode; use inherit, prefix or json',
    ]);
  });

  it('can turn single-child off over the file', () => {
    const command = parseArgs(['job'], { SIDECAR_INIT_SINGLE_CHILD: 'false' });
    if (command.kind !== 'run') throw new Error('expected a run');
    const plan = load({ yaml: `\n  singleChild: true\n  processes: [{ name: x, role: sidecar, command: x }]`, cli: command.cli });
    expect(plan.processes.map((process) => process.signalTarget)).toEqual(['group', 'group']);
    expect(
      load({ yaml: `\n  singleChild: true\n  processes: [{ name: x, role: sidecar, command: x }]`, cli: { app: ['job'] } }).processes[0]
        ?.signalTarget,
    ).toBe('process');
  });

  it('refuses a single-child value that is not a yes or a no, as a usage error', () => {
    expect(parseArgs(['job'], { SIDECAR_INIT_SINGLE_CHILD: 'yes' })).toMatchObject({
      kind: 'exit',
      code: 2,
      output: expect.stringContaining('SIDECAR_INIT_SINGLE_CHILD=yes: use true or false'),
    });
  });
});

describe('SIDECAR_INIT_* names', () => {
  it('refuses a name sidecar-init does not read, as a usage error naming the closest one', () => {
    const command = parseArgs(['job'], { SIDECAR_INIT_GRACES: '5s', SIDECAR_INIT_SIDECAR: 'proxy=envoy', SIDECAR_INIT_GRACE: '5s' });
    expect(command).toMatchObject({ kind: 'exit', code: 2 });
    const lines = command.kind === 'exit' ? command.output.split('\n') : [];
    expect(lines[0]).toMatch(
      /^sidecar-init: SIDECAR_INIT_GRACES is not a variable sidecar-init reads \(did you mean SIDECAR_INIT_GRACE\?\); unset it, or use one of SIDECAR_INIT_GRACE, SIDECAR_INIT_LOG_LEVEL, .*SIDECAR_INIT_CONFIG/,
    );
    expect(lines[1]).toMatch(/^sidecar-init: SIDECAR_INIT_SIDECAR is not a variable sidecar-init reads; unset it, or use one of /);
    expect(lines[2]).toBe('(sidecar-init --help shows the usage)');
  });

  it('knows no name of its own build or tests: under the prefix, such a name is refused like any other', () => {
    const command = parseArgs(['job'], { SIDECAR_INIT_TEST_RUN: 'marker' });
    expect(command).toMatchObject({ kind: 'exit', code: 2 });
    expect(command.kind === 'exit' ? command.output : '').toMatch(
      /^sidecar-init: SIDECAR_INIT_TEST_RUN is not a variable sidecar-init reads/,
    );
  });

  it('takes every option variable, the config file, the addon variables, and leaves alone the names of its own build and test tooling', () => {
    const env = {
      SIDECAR_INIT_GRACE: '5s',
      SIDECAR_INIT_LOG_LEVEL: 'warn',
      SIDECAR_INIT_LOG_FORMAT: 'json',
      SIDECAR_INIT_STATUS_ADDR: ':0',
      SIDECAR_INIT_OUTPUT: 'prefix',
      SIDECAR_INIT_DRAIN: '1s',
      SIDECAR_INIT_REWRITE: 'SIGTERM:SIGQUIT',
      SIDECAR_INIT_SINGLE_CHILD: '1',
      SIDECAR_INIT_SUCCESS_CODE: '143',
      SIDECAR_INIT_CONFIG: 'pod.yaml',
      SIDECAR_INIT_NATIVE_ADDON: '/opt/reaper.node',
      SIDECAR_INIT_NATIVE_DIR: '/run/sidecar-init',
      TEST_SIDECAR_INIT_BIN: 'dist/sidecar-init',
      BUILD_SIDECAR_INIT_NODE: '/usr/bin/node',
      TEST_SIDECAR_INIT_RUN: 'marker',
      TEST_SIDECAR_INIT_TAG: 'tag',
      SIDECAR_INITIAL: 'not under the prefix',
    };
    expect(parseArgs(['job'], env)).toMatchObject({ kind: 'run', configFile: 'pod.yaml' });
  });
});

describe('the plan command', () => {
  it('takes the options of a run and --json', () => {
    expect(parseArgs(['plan', '--json', '--grace', '5s', '--', 'job'], {})).toMatchObject({
      kind: 'plan',
      json: true,
      cli: { options: { grace: '5s' }, app: ['job'] },
    });
    expect(parseArgs(['plan', 'job'], {})).toMatchObject({ kind: 'plan', json: false });
    expect(parseArgs(['--', 'plan'], {})).toMatchObject({ kind: 'run', cli: { app: ['plan'] } });
  });
});

describe('the control socket option', () => {
  it('comes from --control over SIDECAR_INIT_CONTROL over the file, and is off by default', () => {
    const withControl = FILE.replace('grace: 30s', 'grace: 30s\n  control: /run/file.sock');
    expect(load({ yaml: withControl }).control).toEqual({ kind: 'path', path: '/run/file.sock' });
    expect(load({ yaml: FILE }).control).toEqual({ kind: 'default' });
    expect(planOf(['--control', 'none'], {}).control).toEqual({ kind: 'none' });
    expect(planOf([], { SIDECAR_INIT_CONTROL: '/run/env.sock' }).control).toEqual({ kind: 'path', path: '/run/env.sock' });
    expect(planOf(['--control', '/run/flag.sock'], { SIDECAR_INIT_CONTROL: '/run/env.sock' }).control).toEqual({
      kind: 'path',
      path: '/run/flag.sock',
    });
  });

  it('must be an absolute path short enough for a Unix socket, named after its source', () => {
    const command = parseArgs(['--control', 'ctl.sock', 'job'], {});
    if (command.kind !== 'run') throw new Error('expected a run');
    expect(problemsOf({ cli: command.cli })).toEqual([
      '--control ctl.sock: "ctl.sock" is not an absolute path; give one, e.g. /run/sidecar-init.sock, or none',
    ]);
    const fromEnv = parseArgs(['job'], { SIDECAR_INIT_CONTROL: `/${'x'.repeat(200)}` });
    if (fromEnv.kind !== 'run') throw new Error('expected a run');
    expect(problemsOf({ cli: fromEnv.cli })).toEqual([
      `SIDECAR_INIT_CONTROL /${'x'.repeat(200)}: is 201 bytes long; at most 100 (a Unix socket's path holds 107, and the socket is bound under a longer name first)`,
    ]);
    expect(problemsOf({ yaml: 'control: run/s.sock\nprocesses: [{ name: job, role: app, command: job }]' })).toEqual([
      'demo.yaml:1:1 control: "run/s.sock" is not an absolute path; give one, e.g. /run/sidecar-init.sock, or none',
    ]);
  });
});

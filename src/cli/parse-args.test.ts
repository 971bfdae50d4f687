import { describe, expect, it } from 'vitest';
import { EMPTY_CLI_INPUT } from '../config/flags.ts';
import { loadPlan } from '../config/load-plan.ts';
import { parseArgs } from './parse-args.ts';
import { VERSION } from './version.ts';

const NO_ENV = {};

describe('parseArgs', () => {
  it('takes the first operand and everything after it as the app, its options included', () => {
    expect(parseArgs(['python', '-u', 'job.py', '--grace', '5s', '--', 'x'], NO_ENV)).toEqual({
      kind: 'run',
      cli: { ...EMPTY_CLI_INPUT, app: ['python', '-u', 'job.py', '--grace', '5s', '--', 'x'] },
      configFile: undefined,
    });
  });

  it('takes everything after -- as the app, even an app named like the validate command', () => {
    expect(parseArgs(['--', 'validate', '-c', 'x.yaml'], NO_ENV)).toMatchObject({
      kind: 'run',
      cli: { app: ['validate', '-c', 'x.yaml'] },
      configFile: undefined,
    });
    expect(parseArgs(['--grace', '5s', '--', '--weird-app'], NO_ENV)).toMatchObject({
      kind: 'run',
      cli: { options: { grace: '5s' }, app: ['--weird-app'] },
    });
  });

  it('keeps --init and --sidecar in command-line order, interleaved as written', () => {
    const command = parseArgs(
      ['--sidecar', 'proxy=envoy', '--init', 'setup=x', '--sidecar=log=tail -f x', '--init', 'b=y', '--ready', 'proxy=tcp://h:1', 'job'],
      NO_ENV,
    );
    expect(command).toMatchObject({
      kind: 'run',
      cli: {
        processes: [
          { flag: '--sidecar', value: 'proxy=envoy' },
          { flag: '--init', value: 'setup=x' },
          { flag: '--sidecar', value: 'log=tail -f x' },
          { flag: '--init', value: 'b=y' },
        ],
        ready: ['proxy=tcp://h:1'],
        app: ['job'],
      },
    });
  });

  it('collects the repeatable --restart, --stop-signal, --rewrite and --success-code in command-line order', () => {
    const argv = [
      '--restart',
      'proxy=on-failure',
      '--rewrite=SIGTERM:SIGQUIT',
      '--stop-signal',
      'nginx=quit',
      '--success-code',
      '143',
      '--restart',
      'setup=never',
      '--rewrite',
      'HUP:none',
      '--success-code=130',
      '--stop-signal',
      'proxy=INT',
      'job',
    ];
    expect(parseArgs(argv, NO_ENV)).toEqual({
      kind: 'run',
      cli: {
        ...EMPTY_CLI_INPUT,
        restart: ['proxy=on-failure', 'setup=never'],
        stopSignal: ['nginx=quit', 'proxy=INT'],
        options: { rewrite: ['SIGTERM:SIGQUIT', 'HUP:none'], successCode: ['143', '130'] },
        app: ['job'],
      },
      configFile: undefined,
    });
  });

  it('collects the repeatable --user in command-line order', () => {
    expect(parseArgs(['--user', 'init-net=root', '--user=job=nobody:nogroup', 'job'], NO_ENV)).toMatchObject({
      kind: 'run',
      cli: { user: ['init-net=root', 'job=nobody:nogroup'], app: ['job'] },
    });
  });

  it('passes --drain through as written and --single-child as a boolean', () => {
    expect(parseArgs(['--drain', 'curl -X POST http://127.0.0.1:15000/drain', '--single-child', 'job'], NO_ENV)).toMatchObject({
      kind: 'run',
      cli: { options: { drain: 'curl -X POST http://127.0.0.1:15000/drain', singleChild: true }, app: ['job'] },
    });
    const after = parseArgs(['job', '--single-child'], NO_ENV);
    expect(after).toMatchObject({ cli: { app: ['job', '--single-child'] } });
    // After the app it is the app's: not taken as sidecar-init's option.
    expect(after.kind === 'run' && after.cli.options).toEqual({});
  });

  it('passes a --drain value that starts with "-" through, for config to refuse as a malformed duration', () => {
    expect(parseArgs(['--drain', '-1s', 'job'], NO_ENV)).toMatchObject({ kind: 'run', cli: { options: { drain: '-1s' }, app: ['job'] } });
  });

  it('reads the config file from -c/--config, else from SIDECAR_INIT_CONFIG', () => {
    const env = { SIDECAR_INIT_CONFIG: '/etc/env.yaml' };
    expect(parseArgs(['-c', 'a.yaml'], env)).toMatchObject({ kind: 'run', configFile: 'a.yaml' });
    expect(parseArgs(['--config=b.yaml'], env)).toMatchObject({ kind: 'run', configFile: 'b.yaml' });
    expect(parseArgs([], env)).toMatchObject({ kind: 'run', configFile: '/etc/env.yaml' });
    expect(parseArgs([], { SIDECAR_INIT_CONFIG: '' })).toMatchObject({ kind: 'run', configFile: undefined });
  });

  it('passes --grace and --log-level through as written, for config to check', () => {
    expect(parseArgs(['--grace', '5', '--log-level', 'loud', 'job'], NO_ENV)).toMatchObject({
      kind: 'run',
      cli: { options: { grace: '5', logLevel: 'loud' } },
    });
  });

  it('shows the help on stdout and exits 0', () => {
    const command = parseArgs(['--help'], NO_ENV);
    expect(command).toMatchObject({ kind: 'exit', code: 0 });
    expect(command.kind === 'exit' && command.output).toMatch(/^Usage: sidecar-init \[-c FILE\] \[--init NAME=CMD\]\.\.\./);
    expect(command.kind === 'exit' && command.output).toContain('sidecar-init validate [--programs] [-c FILE]');
    for (const flag of [
      '--restart <name=policy>',
      '--stop-signal <name=signal>',
      '--user <name=user[:group]>',
      '--drain <duration|cmd>',
      '--rewrite <sig:sig|none>',
      '--single-child',
      '--success-code <n>',
    ]) {
      expect(command.kind === 'exit' && command.output).toContain(flag);
    }
    expect(command.kind === 'exit' && command.output).toMatch(
      /grpc:\/\/HOST:PORT\[\/SERVICE\],\s+exec:CMD,\s+log:REGEX,\s+file:PATH,\s+notify\s+or\s+fd:N/,
    );
  });

  it('shows the version on stdout and exits 0', () => {
    expect(parseArgs(['--version'], NO_ENV)).toEqual({ kind: 'exit', code: 0, output: `${VERSION}\n` });
  });

  it('with --verbose asks for what `version` prints', () => {
    for (const argv of [
      ['--version', '--verbose'],
      ['--verbose', '-V'],
    ]) {
      expect(parseArgs(argv, NO_ENV)).toEqual({ kind: 'version', json: false });
    }
  });

  it('takes version only as the first argument, with --json or nothing; anything else is a usage error', () => {
    expect(parseArgs(['version'], NO_ENV)).toEqual({ kind: 'version', json: false });
    expect(parseArgs(['version', '--json'], NO_ENV)).toEqual({ kind: 'version', json: true });
    expect(parseArgs(['version', '--help'], NO_ENV)).toMatchObject({
      kind: 'exit',
      code: 0,
      output: expect.stringContaining('Usage: sidecar-init version [--json]\n'),
    });
    expect(parseArgs(['version', '--jsn'], NO_ENV)).toEqual({
      kind: 'exit',
      code: 2,
      output:
        'sidecar-init: version takes only --json, got "--jsn": sidecar-init version [--json]\n(sidecar-init --help shows the usage)\n',
    });
    expect(parseArgs(['--', 'version'], NO_ENV)).toMatchObject({ kind: 'run', cli: { app: ['version'] } });
  });

  it.each([
    [['--bogus', 'job'], "sidecar-init: unknown option '--bogus'"],
    [['--grace'], "sidecar-init: option '--grace <duration>' argument missing"],
    [['-c'], "sidecar-init: option '-c, --config <file>' argument missing"],
    [['--restart'], "sidecar-init: option '--restart <name=policy>' argument missing"],
    [['--drain'], "sidecar-init: option '--drain <duration|cmd>' argument missing"],
  ])('exits 2 on a usage error, with the message on stderr: %j', (argv, message) => {
    const command = parseArgs(argv, NO_ENV);
    expect(command).toEqual({ kind: 'exit', code: 2, output: `${message}\n(sidecar-init --help shows the usage)\n` });
  });

  it('recognizes validate only as the first argument, with the same options and an optional app', () => {
    expect(parseArgs(['validate', '-c', 'x.yaml'], NO_ENV)).toMatchObject({ kind: 'validate', configFile: 'x.yaml', cli: { app: [] } });
    expect(parseArgs(['validate', '--sidecar', 'p=envoy', '--', 'job'], { SIDECAR_INIT_CONFIG: 'e.yaml' })).toMatchObject({
      kind: 'validate',
      configFile: 'e.yaml',
      cli: { processes: [{ flag: '--sidecar', value: 'p=envoy' }], app: ['job'] },
    });
    expect(parseArgs(['-c', 'x.yaml', '--', 'validate'], NO_ENV)).toMatchObject({ kind: 'run', cli: { app: ['validate'] } });
  });

  it('validates the flags alone when there is no config file', () => {
    expect(parseArgs(['validate', '--sidecar', 'p=envoy', '--', 'job'], NO_ENV)).toMatchObject({
      kind: 'validate',
      configFile: undefined,
      cli: { processes: [{ flag: '--sidecar', value: 'p=envoy' }], app: ['job'] },
    });
  });

  it.each(['validate', 'plan', 'install', 'version', 'ctl', 'webhook'])(
    'refuses %s after options, which would have run as the app, with the fix; after -- it is the app',
    (command) => {
      expect(parseArgs(['-c', 'job.yaml', command, 'status'], NO_ENV)).toEqual({
        kind: 'exit',
        code: 2,
        output: `sidecar-init: "${command}" comes after options, where it would run as the app: a command is the first argument (sidecar-init ${command} ...); to run an app named ${command}, put -- before it: sidecar-init -c job.yaml -- ${command} status\n(sidecar-init --help shows the usage)\n`,
      });
      expect(parseArgs(['-c', 'job.yaml', '--', command, 'status'], NO_ENV)).toMatchObject({
        kind: 'run',
        cli: { app: [command, 'status'] },
      });
      // An app's argument of that name is the app's.
      expect(parseArgs(['-c', 'job.yaml', 'job', command], NO_ENV)).toMatchObject({ kind: 'run', cli: { app: ['job', command] } });
    },
  );

  it('shows the help of validate and exits 0', () => {
    const command = parseArgs(['validate', '--help'], NO_ENV);
    expect(command).toMatchObject({ kind: 'exit', code: 0 });
    expect(command.kind === 'exit' && command.output).toMatch(/^Usage: sidecar-init validate \[--programs\] \[-c FILE\]/);
    expect(command.kind === 'exit' && command.output).toContain('--programs');
  });

  it('takes --programs for validate only: a missing program is then an error', () => {
    expect(parseArgs(['validate', '-c', 'x.yaml'], NO_ENV)).toMatchObject({ kind: 'validate', programsAreErrors: false });
    expect(parseArgs(['validate', '--programs', '-c', 'x.yaml'], NO_ENV)).toMatchObject({ kind: 'validate', programsAreErrors: true });
    expect(parseArgs(['plan', '--programs'], NO_ENV)).toMatchObject({ kind: 'exit', code: 2 });
  });

  it('gives loadPlan the new flags, which override the file', () => {
    const readFile = () => 'processes:\n  - { name: proxy, role: sidecar, command: envoy, stopSignal: INT }\n';
    const argv = [
      '-c',
      'x.yaml',
      '--restart',
      'proxy=on-failure',
      '--stop-signal',
      'proxy=quit',
      '--rewrite',
      'TERM:QUIT',
      '--drain',
      '5s',
      '--single-child',
      '--success-code',
      '143',
      '--',
      'java',
      '-jar',
      'app.jar',
    ];
    const command = parseArgs(argv, NO_ENV);
    if (
      command.kind === 'exit' ||
      command.kind === 'install' ||
      command.kind === 'ctl' ||
      command.kind === 'webhook' ||
      command.kind === 'version' ||
      command.kind === 'schema'
    )
      throw new Error(command.kind === 'exit' ? command.output : `not a run: ${command.kind}`);
    const plan = loadPlan({ ...command, readFile });
    expect(plan).toMatchObject({ drain: { kind: 'delay', ms: 5_000 }, rewrite: { SIGTERM: 'SIGQUIT' } });
    expect(plan.processes).toMatchObject([
      { name: 'proxy', restart: { policy: 'on-failure' }, stopSignal: 'SIGQUIT', signalTarget: 'process', successCodes: [] },
      { name: 'app', restart: { policy: 'never' }, stopSignal: undefined, signalTarget: 'process', successCodes: [143] },
    ]);
  });

  it('gives loadPlan its input as is, for run and validate alike', () => {
    const readFile = () => 'processes:\n  - { name: proxy, role: sidecar, command: envoy }\n';
    for (const argv of [
      ['-c', 'x.yaml', 'python', 'job.py'],
      ['validate', '-c', 'x.yaml', '--', 'python', 'job.py'],
    ]) {
      const command = parseArgs(argv, NO_ENV);
      if (!('cli' in command)) throw new Error(command.kind === 'exit' ? command.output : `not a run: ${command.kind}`);
      const plan = loadPlan({ ...command, readFile });
      expect(plan.processes.map((process) => [process.name, process.command])).toEqual([
        ['proxy', ['envoy']],
        ['app', ['python', 'job.py']],
      ]);
    }
  });

  it('takes install DIR as a command only as the first argument, with exactly one directory', () => {
    expect(parseArgs(['install', '/opt/sidecar-init'], NO_ENV)).toEqual({ kind: 'install', dir: '/opt/sidecar-init' });
    expect(parseArgs(['install', '--', '-odd'], NO_ENV)).toEqual({ kind: 'install', dir: '-odd' });
    expect(parseArgs(['--', 'install', '/x'], NO_ENV)).toMatchObject({ kind: 'run', cli: { app: ['install', '/x'] } });
    for (const argv of [['install'], ['install', 'a', 'b'], ['install', '--force'], ['install', '']]) {
      const command = parseArgs(argv, NO_ENV);
      expect(command).toMatchObject({ kind: 'exit', code: 2 });
      if (command.kind === 'exit') expect(command.output).toMatch(/^sidecar-init: install takes one directory: sidecar-init install DIR\n/);
    }
    expect(parseArgs(['install', '--help'], NO_ENV)).toMatchObject({
      kind: 'exit',
      code: 0,
      output: expect.stringMatching(/^Usage: sidecar-init install DIR\n/),
    });
    // Every file install writes (docs/install.md), the runtime folder the launcher needs included.
    const help = parseArgs(['install', '--help'], NO_ENV);
    const output = help.kind === 'exit' ? help.output : '';
    for (const written of ['DIR/sidecar-init (the launcher)', 'DIR/sidecar-init.node', 'DIR/sidecar-init.runtime/'])
      expect(output, written).toContain(written);
  });
});

describe('-c given more than once', () => {
  it.each([[[]], [['validate']], [['plan']]])(
    'is refused with exit 2 in %j, naming every file, instead of the last one silently winning',
    (mode) => {
      expect(parseArgs([...mode, '-c', 'a.yaml', '--config', 'b.yaml', '--', 'job'], NO_ENV)).toEqual({
        kind: 'exit',
        code: 2,
        output:
          'sidecar-init: -c/--config is given 2 times ("a.yaml", "b.yaml"); sidecar-init reads one config file and merges none: ' +
          'give one -c, and the rest as flags, which win over the file\n(sidecar-init --help shows the usage)\n',
      });
    },
  );

  it('once, it is the file, and wins over $SIDECAR_INIT_CONFIG', () => {
    expect(parseArgs(['-c', 'a.yaml'], { SIDECAR_INIT_CONFIG: 'b.yaml' })).toMatchObject({ kind: 'run', configFile: 'a.yaml' });
  });
});

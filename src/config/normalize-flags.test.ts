import { describe, expect, it } from 'vitest';
import { load, problemsOf } from './test-support.ts';

describe('flags', () => {
  it('split NAME=CMD at the first "=" and CMD like a shell', () => {
    const plan = load({ cli: { processes: [{ flag: '--init', value: `migrate=./migrate --url="a=b" 'x y'` }], app: ['job'] } });
    expect(plan.processes[0]).toMatchObject({ name: 'migrate', role: 'init', command: ['./migrate', '--url=a=b', 'x y'] });
  });

  it('report each problem with the flag and its value', () => {
    const cli = {
      processes: [
        { flag: '--init', value: 'migrate' },
        { flag: '--sidecar', value: 'proxy=' },
        { flag: '--sidecar', value: `log=tail -f 'x` },
      ] as const,
      grace: '30',
      logLevel: 'verbose',
      app: ['job'],
    };
    expect(problemsOf({ cli })).toEqual([
      '--grace 30: 30 has no unit; write e.g. 30s or 30ms',
      '--log-level verbose: "verbose" is not a log level; use trace, debug, info, warn, error, fatal, silent',
      '--init migrate: expected NAME=CMD, e.g. --init migrate="./migrate up"',
      '--sidecar proxy=: the command is empty; give the program and its arguments, e.g. "envoy -c /etc/envoy.yaml"',
      "--sidecar log=tail -f 'x: unbalanced quote: the ' at character 9 is never closed in: tail -f 'x",
    ]);
  });

  it('override the file: --grace and --log-level win', () => {
    const yaml = `
      grace: 10s
      logLevel: warn
      processes: [{ name: job, role: app, command: job }]
    `;
    expect(load({ yaml })).toMatchObject({ graceMs: 10_000, logLevel: 'warn' });
    expect(load({ yaml, cli: { grace: '1m30s', logLevel: 'debug' } })).toMatchObject({ graceMs: 90_000, logLevel: 'debug' });
  });
});

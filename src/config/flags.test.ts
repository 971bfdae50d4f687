import { describe, expect, it } from 'vitest';
import { load, problemsOf } from '../../test/support/config.ts';
import { UNDER_MUTATION } from '../../test/support/mutation.ts';

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

const yaml = `
  processes:
    - { name: setup, role: init, command: setup }
    - { name: proxy, role: sidecar, command: envoy }
    - { name: job, role: app, command: job }
`;

describe('--ready', () => {
  it('applies to sidecars from the file and from flags', () => {
    const plan = load({
      yaml,
      cli: { processes: [{ flag: '--sidecar', value: 'db=postgres' }], ready: ['proxy=tcp://127.0.0.1:15000', 'db=exec:pg_isready'] },
    });
    expect(plan.processes.map((process) => process.readiness?.probe)).toEqual([
      undefined,
      { kind: 'tcp', host: '127.0.0.1', port: 15000 },
      { kind: 'exec', command: ['pg_isready'] },
      undefined,
    ]);
  });

  it('takes log:REGEX and file:PATH', () => {
    const plan = load({
      yaml,
      cli: {
        ready: ['proxy=log:all dependencies initialized\\.$', 'db=file:/run/db.ready'],
        processes: [{ flag: '--sidecar', value: 'db=postgres' }],
      },
    });
    expect(plan.processes.map((process) => process.readiness?.probe)).toEqual([
      undefined,
      { kind: 'log', pattern: 'all dependencies initialized\\.$' },
      { kind: 'file', path: '/run/db.ready' },
      undefined,
    ]);
  });

  it('reports a name that is not a sidecar, or unknown, or given twice', () => {
    const cli = {
      ready: ['setup=tcp://127.0.0.1:1', 'job=tcp://127.0.0.1:1', 'proxi=tcp://127.0.0.1:1', 'proxy=tcp://127.0.0.1:1', 'proxy=exec:true'],
    };
    expect(problemsOf({ yaml, cli })).toEqual([
      '--ready setup=tcp://127.0.0.1:1: "setup" is an init step; --ready applies only to sidecars and externals',
      '--ready job=tcp://127.0.0.1:1: "job" is the app; --ready applies only to sidecars and externals',
      '--ready proxi=tcp://127.0.0.1:1: no process is named "proxi"; the sidecars and externals are proxy',
      '--ready proxy=exec:true: --ready was already given for "proxy" (see --ready proxy=tcp://127.0.0.1:1)',
    ]);
  });

  it('reports the probe and the NAME=PROBE form with the flag and its value', () => {
    const cli = { ready: ['proxy=tcp://x:', 'proxy'], app: ['job'] };
    expect(problemsOf({ cli })).toEqual([
      '--ready proxy=tcp://x:: "tcp://x:" has no port; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000',
      '--ready proxy: expected NAME=PROBE, e.g. --ready proxy=http://127.0.0.1:15021/healthz/ready',
      '--ready proxy=tcp://x:: no process is named "proxy"; there are no sidecars or externals',
    ]);
  });
});

describe('--ready options', () => {
  const timed = `
    processes:
      - { name: proxy, role: sidecar, command: envoy, readiness: { probe: 'tcp://127.0.0.1:1', timeout: 3s, deadline: 10s } }
      - { name: db, role: sidecar, command: postgres }
      - { name: job, role: app, command: job }
  `;
  const readinessOf = (plan: ReturnType<typeof load>, name: string) => plan.processes.find((process) => process.name === name)?.readiness;

  it('set deadline and period after the probe, over the file, keeping the timings not given', () => {
    const plan = load({ yaml: timed, cli: { ready: ['proxy=http://127.0.0.1:15021/healthz/ready,deadline=2m,period=500ms'] } });
    expect(readinessOf(plan, 'proxy')).toEqual({
      probe: { kind: 'http', url: 'http://127.0.0.1:15021/healthz/ready', headers: {}, expectStatus: undefined },
      periodMs: 500,
      timeoutMs: 3_000,
      deadlineMs: 120_000,
      periodAfterStartMs: 1_000,
    });
  });

  it('give a sidecar without readiness in the file the defaults for the timings not given', () => {
    const plan = load({ yaml: timed, cli: { ready: ['db=exec:pg_isready,timeout=2s,periodAfterStart=5s'] } });
    expect(readinessOf(plan, 'db')).toEqual({
      probe: { kind: 'exec', command: ['pg_isready'] },
      periodMs: 100,
      timeoutMs: 2_000,
      deadlineMs: 60_000,
      periodAfterStartMs: 5_000,
    });
  });

  it("keep the probe's own commas: an exec command, a quoted word, a log pattern, a query", () => {
    const plan = load({
      cli: {
        processes: [
          { flag: '--sidecar', value: 'a=a' },
          { flag: '--sidecar', value: 'b=b' },
          { flag: '--sidecar', value: 'c=c' },
          { flag: '--sidecar', value: 'd=d' },
        ],
        ready: [
          "a=exec:sh -c 'test -e /a, /b',deadline=2m",
          "b=exec:sh -c 'echo x,deadline=2m'",
          'c=log:^ready \\d{1,3},period=1s',
          'd=http://127.0.0.1:8080/ready?env=a,b',
        ],
        app: ['job'],
      },
    });
    expect(plan.processes.slice(0, 4).map((process) => [process.readiness?.probe, process.readiness?.deadlineMs])).toEqual([
      [{ kind: 'exec', command: ['sh', '-c', 'test -e /a, /b'] }, 120_000],
      [{ kind: 'exec', command: ['sh', '-c', 'echo x,deadline=2m'] }, 60_000],
      [{ kind: 'log', pattern: '^ready \\d{1,3}' }, 60_000],
      [{ kind: 'http', url: 'http://127.0.0.1:8080/ready?env=a,b', headers: {}, expectStatus: undefined }, 60_000],
    ]);
    expect(plan.processes[2]?.readiness?.periodMs).toBe(1_000);
  });

  it("with options only, time an external's preset probe", () => {
    const plan = load({ cli: { processes: [{ flag: '--external', value: 'mesh=istio' }], ready: ['mesh=deadline=5m'], app: ['job'] } });
    expect(readinessOf(plan, 'mesh')).toMatchObject({
      probe: { kind: 'http', url: 'http://127.0.0.1:15021/healthz/ready' },
      deadlineMs: 300_000,
      periodMs: 100,
    });
  });

  it('report a bad duration, a typo, a repeat, and options without a probe to time, with the flag', () => {
    const cli = { ready: ['proxy=tcp://127.0.0.1:1,deadline=2', 'db=exec:true,dedline=2m'], app: ['job'] };
    expect(problemsOf({ yaml: timed, cli })).toEqual([
      '--ready proxy=tcp://127.0.0.1:1,deadline=2: deadline=2: 2 has no unit; write e.g. 2s or 2ms',
      '--ready db=exec:true,dedline=2m: "dedline" is not an option of --ready; did you mean deadline? after the probe, options are ,KEY=DURATION with KEY one of period, timeout, deadline or periodAfterStart, e.g. --ready proxy=tcp://127.0.0.1:15000,deadline=2m,period=500ms',
    ]);
    expect(problemsOf({ yaml: timed, cli: { ready: ['proxy=tcp://127.0.0.1:1,period=1s,period=2s', 'db=deadline=2m'] } })).toEqual([
      '--ready proxy=tcp://127.0.0.1:1,period=1s,period=2s: period is given twice; give it once',
      '--ready db=deadline=2m: "db" has no readiness probe to time; give one before the options, e.g. --ready db=tcp://127.0.0.1:15000,deadline=2m',
    ]);
  });
});

describe('--restart', () => {
  it('sets the policy of any process and keeps the backoff of the file', () => {
    const file = `
      processes:
        - { name: setup, role: init, command: setup }
        - { name: proxy, role: sidecar, command: envoy, backoff: { initial: 2s }, maxRestarts: 3 }
        - { name: job, role: app, command: job }
    `;
    const plan = load({ yaml: file, cli: { restart: ['setup=on-failure', 'proxy=never', 'job=always'] } });
    expect(plan.processes.map((process) => process.restart)).toMatchObject([
      { policy: 'on-failure' },
      { policy: 'never', initialBackoffMs: 2_000, maxRestarts: 3 },
      { policy: 'always' },
    ]);
  });

  it('reports a bad form, an unknown policy or name, always on an init step, and a repeat, with the flag', () => {
    const cli = { restart: ['proxy', 'proxy=sometimes', 'prxy=never', 'setup=always', 'job=never', 'job=always'] };
    expect(problemsOf({ yaml, cli })).toEqual([
      '--restart proxy: expected NAME=POLICY, e.g. --restart migrate=on-failure',
      '--restart proxy=sometimes: "sometimes" is not a restart policy; use always, on-failure, never',
      '--restart prxy=never: no process is named "prxy"; the processes are setup, proxy, job',
      '--restart setup=always: an init step is done once it exits 0, so it cannot restart always; use on-failure to retry a failing step',
      '--restart job=always: --restart was already given for "job" (see --restart job=never)',
    ]);
  });
});

describe('flags that add a process or set a global option', () => {
  it('say what each process flag expects, and report a list option at the value that has the problem', () => {
    const cli = {
      processes: [
        { flag: '--sidecar', value: 'proxy' },
        { flag: '--external', value: 'mesh' },
      ] as const,
      rewrite: ['SIGHUP:SIGTERM', 'SIGCHLD:SIGTERM', 'SIGHUP:SIGINT'],
      app: ['job'],
    };
    expect(problemsOf({ cli })).toEqual([
      '--rewrite SIGCHLD:SIGTERM: SIGCHLD tells sidecar-init that a process exited and is never passed on, so it cannot be rewritten',
      '--rewrite SIGHUP:SIGINT: SIGHUP is already rewritten (see --rewrite SIGHUP:SIGTERM)',
      '--sidecar proxy: expected NAME=CMD, e.g. --sidecar proxy="envoy -c /etc/envoy.yaml"',
      '--external mesh: expected NAME=SPEC, e.g. --external mesh=istio or --external proxy=comm:envoy',
    ]);
  });

  it("word a value of the wrong type as the file's fields do", () => {
    expect(problemsOf({ cli: { announcerUid: 'x', singleChild: 'x', app: ['job'] } as never })).toEqual([
      '--announcer-uid x: expected a number, got "x"',
      '--single-child x: expected a boolean, got "x"',
    ]);
  });
});

describe('--success-code', () => {
  it('applies to the app, in order, and replaces the file list', () => {
    const file = `
      processes:
        - { name: job, role: app, command: java, successCodes: [1] }
    `;
    expect(load({ yaml: file, cli: { successCode: ['143', '130'] } }).processes[0]!.successCodes).toEqual([143, 130]);
    expect(load({ yaml: file }).processes[0]!.successCodes).toEqual([1]);
    // An empty list (the variable set to nothing) gives no codes, so the file's stay.
    expect(load({ yaml: file, cli: { successCode: [] } }).processes[0]!.successCodes).toEqual([1]);
    expect(load({ cli: { successCode: ['0'], app: ['java'] } }).processes[0]!.successCodes).toEqual([0]);
  });

  it('reports what is not an exit code, with the flag', () => {
    expect(problemsOf({ cli: { successCode: ['256', '-1', '0x8f', ''], app: ['job'] } })).toEqual([
      '--success-code 256: 256 is not an exit code; use a whole number from 0 to 255',
      '--success-code -1: "-1" is not an exit code; use a whole number from 0 to 255',
      '--success-code 0x8f: "0x8f" is not an exit code; use a whole number from 0 to 255',
      '--success-code : "" is not an exit code; use a whole number from 0 to 255',
    ]);
  });
});

describe('thousands of target flags', () => {
  it('name at most ten candidates in a message, and how many more there are', () => {
    const sidecars = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ flag: '--sidecar' as const, value: `s${index}=envoy` }));
    expect(problemsOf({ cli: { processes: sidecars(12), ready: ['nope=tcp://x:1'], app: ['job'] } })).toEqual([
      '--ready nope=tcp://x:1: no process is named "nope"; the sidecars and externals are s0, s1, s2, s3, s4, s5, s6, s7, s8, s9 and 2 more',
    ]);
    expect(problemsOf({ cli: { processes: sidecars(10), ready: ['nope=tcp://x:1'], app: ['job'] } })).toEqual([
      '--ready nope=tcp://x:1: no process is named "nope"; the sidecars and externals are s0, s1, s2, s3, s4, s5, s6, s7, s8, s9',
    ]);
  });

  it.skipIf(UNDER_MUTATION)('are matched to their processes by name once each, and a message names at most ten candidates', () => {
    const count = 3_000;
    const processes = Array.from({ length: count }, (_, index) => ({ flag: '--sidecar' as const, value: `s${index}=envoy` }));
    const ready = Array.from({ length: count }, (_, index) => `s${index}=tcp://127.0.0.1:${1000 + index}`);
    const started = performance.now();
    const plan = load({ cli: { processes, ready, app: ['job'] } });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(plan.processes[count - 1]!.readiness?.probe).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 1000 + count - 1 });
    expect(problemsOf({ cli: { processes, ready: ['nope=tcp://x:1'], app: ['job'] } })).toEqual([
      '--ready nope=tcp://x:1: no process is named "nope"; the sidecars and externals are s0, s1, s2, s3, s4, s5, s6, s7, s8, s9 and 2990 more',
    ]);
  });
});

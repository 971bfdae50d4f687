import { describe, expect, it } from 'vitest';
import { testProcess } from '../../test/support/test-plan.ts';
import { EMPTY_CLI_INPUT } from './flags.ts';
import { ConfigError } from './config-error.ts';
import { loadPlan } from './load-plan.ts';
import { DEFAULTS, type Plan } from '../plan/plan.ts';
import { load, problemsOf } from '../../test/support/config.ts';

const CONFIG_EXAMPLE = `
  grace: 25s
  processes:                 # started in this order
    - name: net-setup
      role: init
      command: ["sh", "-c", "iptables-restore < /etc/rules"]
    - name: proxy
      role: sidecar
      command: "envoy -c /etc/envoy.yaml"     # a string is split like a shell, or give a list
      env: { LOG_LEVEL: info }
      cwd: /srv
      readiness:
        probe: http://127.0.0.1:15021/healthz/ready
        period: 100ms        # time between attempts
        timeout: 1s          # one attempt
        deadline: 60s        # give up on startup after this
    - name: job
      role: app
      command: ["python", "job.py"]
`;

// The YAML example of the README's section on restarts, probes, dependencies and shutdown.
const README_EXAMPLE = `
  grace: 25s
  drain: 5s
  rewrite: { SIGHUP: none }
  processes:
    - name: net-setup
      role: init
      command: ["sh", "-c", "iptables-restore < /etc/rules"]
      restart: on-failure
      maxRestarts: 3
    - name: db
      role: sidecar
      command: postgres
      readiness:
        probe: "log:ready to accept connections"
    - name: proxy
      role: sidecar
      command: "envoy -c /etc/envoy.yaml"
      after: [net-setup]
      fatal: true
      stopSignal: quit
      grace: 10s
      readiness:
        probe: { http: { url: "http://127.0.0.1:15021/healthz/ready", expectStatus: [200] } }
      liveness:
        probe: tcp://127.0.0.1:15000
        failureThreshold: 3
      backoff: { initial: 1s, max: 30s }
      preStop:
        http: { url: "http://127.0.0.1:15000/drain_listeners?graceful", method: post }
    - name: job
      role: app
      command: ["java", "-jar", "job.jar"]
      after: [db, proxy]
      successCodes: [143]
      postStart: { exec: "touch /tmp/started" }
`;

function order(plan: Plan): string[] {
  return plan.processes.map((process) => `${process.name}:${process.role}:${process.after.join(',')}`);
}

describe('loadPlan', () => {
  it('builds the plan of the configuration example, every default from plan.ts', () => {
    expect(load({ yaml: CONFIG_EXAMPLE })).toEqual({
      graceMs: 25_000,
      logLevel: DEFAULTS.logLevel,
      terminationLog: { kind: 'if-present', path: '/dev/termination-log' },
      drain: undefined,
      rewrite: {},
      control: { kind: 'default' },
      output: 'inherit',
      singleChild: false,
      processes: [
        { ...testProcess('net-setup', 'init', { command: ['sh', '-c', 'iptables-restore < /etc/rules'] }), after: [] },
        {
          ...testProcess('proxy', 'sidecar', {
            command: ['envoy', '-c', '/etc/envoy.yaml'],
            env: { LOG_LEVEL: 'info' },
            cwd: '/srv',
            readiness: {
              probe: { kind: 'http', url: 'http://127.0.0.1:15021/healthz/ready', headers: {}, expectStatus: undefined },
              periodMs: 100,
              timeoutMs: 1_000,
              deadlineMs: 60_000,
              periodAfterStartMs: DEFAULTS.readiness.periodAfterStartMs,
            },
          }),
          after: ['net-setup'],
        },
        { ...testProcess('job', 'app', { command: ['python', 'job.py'] }), after: ['net-setup', 'proxy'] },
      ],
    });
  });

  it('builds the plan of the README example of restarts, probes, dependencies and shutdown', () => {
    const plan = load({ yaml: README_EXAMPLE });
    expect(plan).toMatchObject({ graceMs: 25_000, drain: { kind: 'delay', ms: 5_000 }, rewrite: { SIGHUP: null } });
    expect(order(plan)).toEqual(['net-setup:init:', 'db:sidecar:', 'proxy:sidecar:net-setup', 'job:app:db,proxy']);
    const [setup, db, proxy, job] = plan.processes;
    expect(setup!.restart).toMatchObject({ policy: 'on-failure', maxRestarts: 3 });
    expect(db!.readiness?.probe).toEqual({ kind: 'log', pattern: 'ready to accept connections' });
    expect(proxy).toMatchObject({
      fatal: true,
      stopSignal: 'SIGQUIT',
      graceMs: 10_000,
      signalTarget: 'group',
      restart: { policy: 'always', initialBackoffMs: 1_000, maxBackoffMs: 30_000 },
      liveness: { probe: { kind: 'tcp', host: '127.0.0.1', port: 15000 }, failureThreshold: 3 },
      preStop: { kind: 'http', url: 'http://127.0.0.1:15000/drain_listeners?graceful', method: 'POST' },
    });
    expect(job).toMatchObject({ successCodes: [143], postStart: { kind: 'exec', command: ['touch', '/tmp/started'] } });
  });

  it('builds a plan from flags alone, with the defaults from plan.ts', () => {
    const plan = load({ cli: { processes: [{ flag: '--sidecar', value: 'proxy=envoy' }], app: ['python', '-u', 'job.py'] } });
    expect(plan.graceMs).toBe(DEFAULTS.graceMs);
    expect(plan.logLevel).toBe(DEFAULTS.logLevel);
    expect(plan.processes.map((process) => [process.name, process.command])).toEqual([
      ['proxy', ['envoy']],
      ['app', ['python', '-u', 'job.py']],
    ]);
  });

  it('puts the file entries first in file order, then --init/--sidecar interleaved as given, then the app', () => {
    const yaml = `
      processes:
        - { name: job, role: app, command: job }
        - { name: setup, role: init, command: setup }
        - { name: proxy, role: sidecar, command: envoy }
    `;
    const cli = {
      processes: [
        { flag: '--sidecar', value: 'b=b' },
        { flag: '--init', value: 'a=a' },
        { flag: '--sidecar', value: 'c=c' },
        { flag: '--init', value: 'd=d' },
      ] as const,
    };
    expect(order(load({ yaml, cli }))).toEqual([
      'setup:init:',
      'proxy:sidecar:setup',
      'b:sidecar:proxy',
      'a:init:b',
      'c:sidecar:a',
      'd:init:c',
      'job:app:setup,proxy,b,a,c,d',
    ]);
  });

  it('replaces the file app with the app given after --, which keeps its name but nothing else', () => {
    const yaml = `
      processes:
        - { name: proxy, role: sidecar, command: envoy }
        - { name: job, role: app, command: old-job, env: { A: "1" }, cwd: /old }
    `;
    const plan = load({ yaml, cli: { processes: [{ flag: '--init', value: 'setup=x' }], app: ['python', 'new.py'] } });
    expect(order(plan)).toEqual(['proxy:sidecar:', 'setup:init:proxy', 'job:app:proxy,setup']);
    expect(plan.processes[2]).toMatchObject({ command: ['python', 'new.py'], env: {}, cwd: undefined });
  });

  it('keeps the file timings when --ready replaces a probe, and uses the defaults otherwise', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          readiness: { probe: "tcp://127.0.0.1:1", period: 1s, deadline: 5s }
        - { name: job, role: app, command: job }
    `;
    const plan = load({ yaml, cli: { ready: ['proxy=http://127.0.0.1:2/ready'] } });
    expect(plan.processes[0]!.readiness).toEqual({
      probe: { kind: 'http', url: 'http://127.0.0.1:2/ready', headers: {}, expectStatus: undefined },
      periodMs: 1_000,
      timeoutMs: 1_000,
      deadlineMs: 5_000,
      periodAfterStartMs: DEFAULTS.readiness.periodAfterStartMs,
    });
  });

  it('reports every problem of the file and the flags at once, file lines first', () => {
    const yaml = `
      grace: soon
      processes:
        - name: proxy
          role: sidecar
          comand: envoy
        - name: proxy
          role: app
          command: "job '"
    `;
    const cli = { ready: ['job=tcp://x:1'], grace: 'later', processes: [{ flag: '--init', value: 'Setup=x' }] as const };
    expect(problemsOf({ yaml, cli })).toEqual([
      'demo.yaml:1:1 grace: "soon" is not a duration; use e.g. 500ms, 5s, 1m',
      'demo.yaml:3:5 processes[0].command: is required; give a string or a list',
      'demo.yaml:5:5 processes[0].comand: unknown key "comand" (did you mean command?); accepted here: name, role, command, env, cwd, user, group, after, readiness, liveness, restart, backoff, maxRestarts, fatal, postStart, preStop, stopSignal, grace, signalGroup, output',
      'demo.yaml:6:5 processes[1].name: "proxy" is already the name of another process (see demo.yaml:3:5 processes[0].name)',
      "demo.yaml:8:5 processes[1].command: unbalanced quote: the ' at character 5 is never closed in: job '",
      '--grace later: "later" is not a duration; use e.g. 500ms, 5s, 1m',
      '--init Setup=x: "Setup" is not a valid name; use lower-case letters, digits and "-", starting and ending with a letter or digit (a DNS label, like a Kubernetes container name)',
      '--ready job=tcp://x:1: no process is named "job"; the sidecars and externals are proxy',
    ]);
  });

  it('throws a ConfigError with code CONFIG_INVALID, one problem per line of its message', () => {
    const error = (() => {
      try {
        load({ cli: { grace: 'x' } });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', name: 'ConfigError' });
    const { message, problems } = error as ConfigError;
    expect(message.split('\n')).toEqual(problems.map((problem) => problem.text));
    expect(problems[0]).toMatchObject({ location: '--grace x', message: '"x" is not a duration; use e.g. 500ms, 5s, 1m' });
  });

  it('gives the file and line of YAML syntax errors, and still checks the flags', () => {
    const yaml = `
      processes:
        - name: job
          role: app
          role: init
    `;
    expect(problemsOf({ yaml, cli: { grace: '5' } })).toEqual([
      'demo.yaml:4:5: invalid YAML: Map keys must be unique',
      '--grace 5: 5 has no unit; write e.g. 5s or 5ms',
    ]);
    expect(problemsOf({ yaml: 'processes: [a\ngrace: 5s\n' })[0]).toMatch(/^demo\.yaml:2:1: invalid YAML: /);
  });

  it('reports a config file that cannot be read', () => {
    const read = (): string => {
      throw Object.assign(new Error("ENOENT: no such file or directory, open 'missing.yaml'"), { code: 'ENOENT' });
    };
    expect(() => loadPlan({ cli: EMPTY_CLI_INPUT, configFile: 'missing.yaml', readFile: read })).toThrow(
      'missing.yaml: cannot read the config file: no such file',
    );
  });

  it('reads the file from disk by default', () => {
    expect(() => loadPlan({ cli: EMPTY_CLI_INPUT, configFile: '/nonexistent/sidecar-init.yaml' })).toThrow(
      '/nonexistent/sidecar-init.yaml: cannot read the config file: no such file',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { load } from '../../test/support/config.ts';
import { planText } from './plan-text.ts';
import { planView } from './plan-view.ts';

const CHAIN = `
  grace: 20s
  drain: 5s
  processes:
    - name: proxy
      role: sidecar
      command: envoy -c /etc/envoy.yaml
      readiness: { probe: "http://127.0.0.1:15021/ready", periodAfterStart: 2s }
      stopSignal: SIGQUIT
      preStop: { http: { url: "http://127.0.0.1:15000/drain", method: POST } }
    - name: migrate
      role: init
      command: ["sh", "-c", "echo 'it works'"]
    - name: job
      role: app
      command: python job.py
      successCodes: [143]
`;

const GRAPH = `
  processes:
    - name: db
      role: sidecar
      command: postgres
      readiness: { probe: "tcp://127.0.0.1:5432" }
    - name: cache
      role: sidecar
      command: redis-server
    - name: migrate
      role: init
      command: migrate up
      after: [db]
    - name: metrics
      role: sidecar
      command: exporter
      after: [migrate, cache]
    - name: job
      role: app
      command: job
      after: [migrate]
`;

describe('planView', () => {
  it('lists the default chain one entry per wave, stopped in reverse without init steps', () => {
    const view = planView(load({ yaml: CHAIN }));
    expect(view.start).toEqual([['proxy'], ['migrate'], ['job']]);
    expect(view.stop).toEqual([['job'], ['proxy']]);
    expect(view.graceMs).toBe(20_000);
    expect(view.drain).toEqual({ delayMs: 5_000 });
    expect(view.processes.map((process) => [process.name, process.role])).toEqual([
      ['proxy', 'sidecar'],
      ['migrate', 'init'],
      ['job', 'app'],
    ]);
    expect(view.processes[0]).toMatchObject({
      command: ['envoy', '-c', '/etc/envoy.yaml'],
      readiness: { probe: 'http://127.0.0.1:15021/ready', periodMs: 100, timeoutMs: 1_000, deadlineMs: 60_000, periodAfterStartMs: 2_000 },
      restart: { policy: 'always', maxRestarts: null },
      stopSignal: 'SIGQUIT',
      preStop: { kind: 'http', describe: 'http: POST http://127.0.0.1:15000/drain', timeoutMs: 10_000 },
    });
    expect(view.processes[2]).toMatchObject({ stopSignal: null, successCodes: [143], readiness: null, restart: { policy: 'never' } });
  });

  it('groups entries that start together under after:, and stops dependents first', () => {
    const view = planView(load({ yaml: GRAPH }));
    expect(view.start).toEqual([['db', 'cache'], ['migrate'], ['metrics', 'job']]);
    expect(view.processes.map((process) => process.name)).toEqual(['db', 'cache', 'migrate', 'metrics', 'job']);
    // metrics and job wait (through migrate, long done) for db: db stops once both are down, as cache does.
    expect(view.stop).toEqual([
      ['metrics', 'job'],
      ['db', 'cache'],
    ]);
  });

  it('is plain JSON', () => {
    const view = planView(load({ yaml: GRAPH }));
    expect(JSON.parse(JSON.stringify(view))).toEqual(view);
  });
});

describe('planText', () => {
  it('prints waves, the budget and each process with its probe, restart policy, stop signal and hooks', () => {
    expect(planText(load({ yaml: CHAIN }))).toBe(
      [
        'start (each wave once the one before is ready or done):',
        '  1. proxy',
        '  2. migrate',
        '  3. job',
        'stop (each wave once the one before is down):',
        '  1. job',
        '  2. proxy',
        'grace budget: 20s, from the first stop signal to exit',
        `control socket: /tmp/sidecar-init-${process.geteuid?.() ?? 0}/control.sock (sidecar-init ctl status)`,
        'drain: wait 5s',
        '',
        'processes (in start order):',
        '  proxy (sidecar)',
        '    command:    envoy -c /etc/envoy.yaml',
        '    readiness:  http://127.0.0.1:15021/ready every 100ms, timeout 1s, deadline 1m; once started every 2s',
        '    restart:    always, backoff 1s doubling to 1m, reset after 10m, no limit',
        '    stop:       SIGQUIT, to its process group',
        '    preStop:    http: POST http://127.0.0.1:15000/drain, timeout 10s',
        '  migrate (init)',
        `    command:    sh -c "echo 'it works'"`,
        '    after:      proxy',
        '    restart:    never',
        '  job (app)',
        '    command:    python job.py',
        '    after:      proxy, migrate',
        '    restart:    never',
        '    stop:       SIGTERM (on termination: the signal received), to its process group',
        '    success:    exit codes 143 count as 0',
        '',
      ].join('\n'),
    );
  });
});

describe('describeProbe', () => {
  it('writes a grpc probe as it is written after --ready, the service after a slash', () => {
    const yaml = `
      processes:
        - name: api
          role: sidecar
          command: api
          readiness: { probe: { grpc: { host: "::1", port: 9090, service: my.pkg.Api } } }
          liveness: { probe: "grpc://127.0.0.1:9090" }
        - { name: job, role: app, command: job }
    `;
    const [api] = planView(load({ yaml })).processes;
    expect(api?.readiness?.probe).toBe('grpc://[::1]:9090/my.pkg.Api');
    expect(api?.liveness?.probe).toBe('grpc://127.0.0.1:9090');
  });
});

describe('the control socket in the plan', () => {
  it('is named with the command that reaches it, and is null without one', () => {
    const yaml = 'control: /run/sidecar-init.sock\nprocesses: [{ name: job, role: app, command: job }]';
    expect(planView(load({ yaml })).control).toBe('/run/sidecar-init.sock');
    expect(planText(load({ yaml }))).toContain(
      'control socket: /run/sidecar-init.sock (sidecar-init ctl --control /run/sidecar-init.sock status)',
    );
    expect(planView(load({ yaml: 'processes: [{ name: job, role: app, command: job }]' })).control).toBe(
      `/tmp/sidecar-init-${process.geteuid?.() ?? 0}/control.sock`,
    );
    expect(planView(load({ yaml: 'control: none\nprocesses: [{ name: job, role: app, command: job }]' })).control).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROBE_DEADLINE_MS,
  DEFAULT_PROBE_PERIOD_AFTER_START_MS,
  DEFAULT_PROBE_PERIOD_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
} from './plan.ts';
import { load, problemsOf } from './test-support.ts';

const JOB = '  - { name: job, role: app, command: job }';

describe('a process from the file', () => {
  it('splits a command string like a shell and keeps a list as given', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy -c "/etc/envoy config.yaml" --log 'a b'
        - name: job
          role: app
          command: [python, "-c", "print('hi there')"]
    `;
    const [proxy, job] = load({ yaml }).processes;
    expect(proxy!.command).toEqual(['envoy', '-c', '/etc/envoy config.yaml', '--log', 'a b']);
    expect(job!.command).toEqual(['python', '-c', "print('hi there')"]);
  });

  it('reports empty commands and unbalanced quotes at the command key', () => {
    const yaml = `
      processes:
        - { name: a, role: init, command: "" }
        - { name: b, role: init, command: "   " }
        - { name: c, role: init, command: [] }
        - { name: d, role: init, command: [""] }
        - name: e
          role: init
          command: sh -c 'echo hi
      ${JOB}
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:28 processes[0].command: the command is empty; give the program and its arguments, e.g. "envoy -c /etc/envoy.yaml"',
      'demo.yaml:3:28 processes[1].command: the command is empty; give the program and its arguments, e.g. "envoy -c /etc/envoy.yaml"',
      'demo.yaml:4:28 processes[2].command: is an empty list; give at least 1 item',
      'demo.yaml:5:28 processes[3].command: the program name is empty; give the program and its arguments, e.g. "envoy -c /etc/envoy.yaml"',
      "demo.yaml:8:5 processes[4].command: unbalanced quote: the ' at character 7 is never closed in: sh -c 'echo hi",
    ]);
  });

  it('applies the readiness defaults from plan.ts and reads the durations', () => {
    const yaml = `
      processes:
        - name: a
          role: sidecar
          command: a
          readiness: { probe: "tcp://127.0.0.1:1" }
        - name: b
          role: sidecar
          command: b
          readiness: { probe: "exec:true", period: 250ms, timeout: 1m30s, deadline: 2h }
      ${JOB}
    `;
    const [a, b] = load({ yaml }).processes;
    expect(a!.readiness).toEqual({
      probe: { kind: 'tcp', host: '127.0.0.1', port: 1 },
      periodMs: DEFAULT_PROBE_PERIOD_MS,
      timeoutMs: DEFAULT_PROBE_TIMEOUT_MS,
      deadlineMs: DEFAULT_PROBE_DEADLINE_MS,
      periodAfterStartMs: DEFAULT_PROBE_PERIOD_AFTER_START_MS,
    });
    expect(b!.readiness).toEqual({
      probe: { kind: 'exec', command: ['true'] },
      periodMs: 250,
      timeoutMs: 90_000,
      deadlineMs: 7_200_000,
      periodAfterStartMs: DEFAULT_PROBE_PERIOD_AFTER_START_MS,
    });
  });

  it('reports bad durations, zero timings and bad probes, each at its own key', () => {
    const yaml = `
      grace: 5
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          readiness:
            probe: https://127.0.0.1/ready
            period: 5x
            timeout: 0s
            deadline: "60"
        - name: db
          role: sidecar
          command: postgres
          readiness:
            probe: tcp://127.0.0.1:99999
            period: 0ms
            deadline: 0h
      ${JOB}
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:1:1 grace: 5 has no unit; write e.g. 5s or 5ms',
      'demo.yaml:7:7 processes[0].readiness.probe: https probes are not supported yet; use http:// (probes reach processes inside the container, usually on 127.0.0.1)',
      'demo.yaml:8:7 processes[0].readiness.period: "5x" is not a duration; use e.g. 500ms, 5s, 1m',
      'demo.yaml:9:7 processes[0].readiness.timeout: "0s" is zero; give a duration of at least 1ms',
      'demo.yaml:10:7 processes[0].readiness.deadline: 60 has no unit; write e.g. 60s or 60ms',
      'demo.yaml:15:7 processes[1].readiness.probe: port "99999" is not a number from 1 to 65535',
      'demo.yaml:16:7 processes[1].readiness.period: "0ms" is zero; give a duration of at least 1ms',
      'demo.yaml:17:7 processes[1].readiness.deadline: "0h" is zero; give a duration of at least 1ms',
    ]);
  });

  it('allows a grace of zero (stop at once)', () => {
    expect(load({ yaml: 'grace: 0s', cli: { app: ['job'] } }).graceMs).toBe(0);
  });

  it('reports readiness on an init step or the app: only sidecars have it', () => {
    const yaml = `
      processes:
        - name: setup
          role: init
          command: setup
          readiness: { probe: "exec:true" }
        - name: job
          role: app
          command: job
          readiness: { probe: "exec:true" }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:5:5 processes[0].readiness: only sidecars have readiness; this process has role init',
      'demo.yaml:9:5 processes[1].readiness: only sidecars have readiness; this process has role app',
    ]);
  });

  it('reports an empty cwd and keeps a given one', () => {
    const yaml = `
      processes:
        - { name: a, role: init, command: a, cwd: "" }
        - { name: job, role: app, command: job, cwd: /srv }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:40 processes[0].cwd: is empty; leave cwd out to use the working directory of sidecar-init',
    ]);
    expect(load({ yaml: yaml.replace(', cwd: ""', '') }).processes[1]!.cwd).toBe('/srv');
  });
});

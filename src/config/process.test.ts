import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../plan/plan.ts';
import { load, problemsOf } from '../../test/support/config.ts';
import { validateName } from './process.ts';

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
      periodMs: DEFAULTS.readiness.periodMs,
      timeoutMs: DEFAULTS.readiness.timeoutMs,
      deadlineMs: DEFAULTS.readiness.deadlineMs,
      periodAfterStartMs: DEFAULTS.readiness.periodAfterStartMs,
    });
    expect(b!.readiness).toEqual({
      probe: { kind: 'exec', command: ['true'] },
      periodMs: 250,
      timeoutMs: 90_000,
      deadlineMs: 7_200_000,
      periodAfterStartMs: DEFAULTS.readiness.periodAfterStartMs,
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
      'demo.yaml:5:5 processes[0].readiness: only sidecars and externals have readiness; this process has role init',
      'demo.yaml:9:5 processes[1].readiness: only sidecars and externals have readiness; this process has role app',
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

describe('fields that only some roles have', () => {
  it('reports liveness, hooks, fatal and successCodes where the role has none, at the key', () => {
    const yaml = `
      processes:
        - name: setup
          role: init
          command: setup
          liveness: { probe: "exec:true" }
          postStart: { exec: "true" }
          preStop: { exec: "true" }
          fatal: false
          successCodes: [1]
        - name: proxy
          role: sidecar
          command: envoy
          successCodes: [143]
        - name: job
          role: app
          command: job
          fatal: true
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:5:5 processes[0].liveness: only sidecars and the app have liveness; this process has role init',
      'demo.yaml:6:5 processes[0].postStart: only sidecars and the app have postStart; this process has role init',
      'demo.yaml:7:5 processes[0].preStop: only sidecars and the app have preStop; this process has role init',
      'demo.yaml:8:5 processes[0].fatal: only sidecars have fatal; this process has role init',
      'demo.yaml:9:5 processes[0].successCodes: only the app has successCodes; this process has role init',
      'demo.yaml:13:5 processes[1].successCodes: only the app has successCodes; this process has role sidecar',
      'demo.yaml:17:5 processes[2].fatal: only sidecars have fatal; this process has role app',
    ]);
  });

  it('allows restart, backoff, maxRestarts, stopSignal, grace and signalGroup on every role', () => {
    const common = 'restart: on-failure, backoff: { initial: 2s }, maxRestarts: 3, stopSignal: INT, grace: 5s, signalGroup: false';
    const yaml = `
      processes:
        - { name: setup, role: init, command: setup, ${common} }
        - { name: proxy, role: sidecar, command: envoy, ${common} }
        - { name: job, role: app, command: job, ${common} }
    `;
    for (const process of load({ yaml }).processes) {
      expect(process).toMatchObject({
        restart: { policy: 'on-failure', initialBackoffMs: 2_000, maxRestarts: 3 },
        stopSignal: 'SIGINT',
        graceMs: 5_000,
        signalTarget: 'process',
      });
    }
  });

  it('reads fatal on a sidecar and successCodes on the app, with their defaults elsewhere', () => {
    const yaml = `
      processes:
        - { name: proxy, role: sidecar, command: envoy, fatal: true }
        - { name: log, role: sidecar, command: tail }
        - { name: job, role: app, command: java, successCodes: [143, 0] }
    `;
    expect(load({ yaml }).processes.map((process) => [process.name, process.fatal, process.successCodes])).toEqual([
      ['proxy', true, []],
      ['log', false, []],
      ['job', false, [143, 0]],
    ]);
  });

  it('reports exit codes outside 0..255 at their item', () => {
    const yaml = `
      processes:
        - { name: job, role: app, command: job, successCodes: [143, 256, -1, 1.5] }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:63 processes[0].successCodes[1]: 256 is not an exit code; use a whole number from 0 to 255',
      'demo.yaml:2:68 processes[0].successCodes[2]: -1 is not an exit code; use a whole number from 0 to 255',
      'demo.yaml:2:72 processes[0].successCodes[3]: 1.5 is not an exit code; use a whole number from 0 to 255',
    ]);
  });
});

describe('validateName', () => {
  it.each(['proxy', 'a', '0', 'net-setup', 'a1-b2', 'x'.repeat(63)])('accepts %j', (name) => {
    expect(validateName(name)).toBeUndefined();
  });

  it.each(['', 'Proxy', '-proxy', 'proxy-', 'my_proxy', 'my.proxy', 'prøxy'])('rejects %j as not a DNS label', (name) => {
    expect(validateName(name)).toMatch(/is not a valid name; use lower-case letters, digits and "-".*\(a DNS label/);
  });

  it('rejects names longer than 63 characters', () => {
    expect(validateName('x'.repeat(64))).toBe(`"${'x'.repeat(64)}" is 64 characters long; a name has at most 63 (a DNS label)`);
  });
});

describe('a NUL byte', () => {
  it('is refused at its field in a command, an argument, a cwd, an env value, a probe or a hook', () => {
    const yaml = `
      processes:
        - { name: a, role: init, command: "migrate\\0 up" }
        - { name: b, role: init, command: [sh, -c, "echo\\0"] }
        - { name: c, role: init, command: setup, cwd: "/srv\\0" }
        - { name: d, role: init, command: setup, env: { MODE: "x\\0y" } }
        - name: e
          role: sidecar
          command: envoy
          readiness: { probe: "exec:check \\0" }
          liveness: { probe: "file:/tmp/\\0alive" }
          postStart: { exec: ["warm", "\\0"] }
      ${JOB}
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:28 processes[0].command: the program name has a NUL character, which no command line can hold',
      'demo.yaml:3:28 processes[1].command: argument 2 has a NUL character, which no command line can hold',
      'demo.yaml:4:44 processes[2].cwd: has a NUL character, which no directory name can hold',
      'demo.yaml:5:51 processes[3].env.MODE: the value contains a NUL character, which no environment can hold',
      'demo.yaml:9:18 processes[4].readiness.probe: exec probe: argument 1 has a NUL character, which no command line can hold',
      'demo.yaml:10:17 processes[4].liveness.probe: file: the path has a NUL character, which no file name can hold',
      'demo.yaml:11:18 processes[4].postStart.exec: argument 1 has a NUL character, which no command line can hold',
    ]);
  });
});

describe('env', () => {
  it('checks each name, and a name only when its value is one', () => {
    const yaml = `
      processes:
        - name: job
          role: app
          command: job
          env: { "": x, "A\\0B": x, "F=G": ~, "C=D": [x], E: "\\0" }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:5:12 processes[0].env[""]: "" is not a variable name; a name is not empty and has no "=" in it',
      'demo.yaml:5:19 processes[0].env["A\\u0000B"]: "A\\u0000B" is not a variable name; a name is not empty and has no "=" in it',
      'demo.yaml:5:30 processes[0].env["F=G"]: has no value; write "" for an empty string',
      'demo.yaml:5:40 processes[0].env["C=D"]: expected a string, a number or a boolean, got a list',
      'demo.yaml:5:52 processes[0].env.E: the value contains a NUL character, which no environment can hold',
    ]);
  });

  it('checks the name of a number or boolean that an alias brings from outside env', () => {
    const yaml = `
      processes:
        - { name: job, role: app, command: job, maxRestarts: &n 3, signalGroup: &t true, env: { "A=B": *n, "C=D": *t } }
    `;
    expect(problemsOf({ yaml })).toEqual([
      expect.stringMatching(/^demo\.yaml:2:\d+ processes\[0\]\.env\["A=B"\]: "A=B" is not a variable name/),
      expect.stringMatching(/^demo\.yaml:2:\d+ processes\[0\]\.env\["C=D"\]: "C=D" is not a variable name/),
    ]);
  });

  it('that is not a mapping is only that, whatever its items hold', () => {
    const yaml = `
      processes:
        - { name: job, role: app, command: job, env: ["A=\\0"] }
    `;
    expect(problemsOf({ yaml })).toEqual([expect.stringMatching(/^demo\.yaml:2:\d+ processes\[0\]\.env: expected a mapping/)]);
  });
});

describe('an external’s plan entry', () => {
  it('has its name as its command, for logs, and no fields of a started process', () => {
    const yaml = `
      processes:
        - { name: mesh, role: external, preset: istio }
        - { name: job, role: app, command: job }
    `;
    expect(load({ yaml }).processes[0]).toMatchObject({
      name: 'mesh',
      role: 'external',
      command: ['mesh'],
      env: {},
      fatal: false,
      successCodes: [],
      restart: { policy: 'never' },
    });
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../plan/plan.ts';
import { APP_ONLY, appOnlyWith, load, problemsOf } from '../../test/support/config.ts';
import { describeHook } from './hook.ts';

describe('postStart and preStop', () => {
  it('read an exec hook (list or string) or an http hook, with the default method and timeout', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          postStart: { exec: [sh, -c, "echo started"] }
          preStop: { http: { url: "http://127.0.0.1:15000/drain_listeners", method: post }, timeout: 20s }
        - name: job
          role: app
          command: job
          preStop: { exec: "kill -USR1 1" }
          postStart: { http: { url: "http://127.0.0.1:8080/warm" } }
    `;
    const [proxy, job] = load({ yaml }).processes;
    expect([proxy!.postStart, proxy!.preStop]).toEqual([
      { kind: 'exec', command: ['sh', '-c', 'echo started'], timeoutMs: DEFAULTS.hook.timeoutMs },
      { kind: 'http', url: 'http://127.0.0.1:15000/drain_listeners', method: 'POST', timeoutMs: 20_000 },
    ]);
    expect([job!.preStop, job!.postStart]).toEqual([
      { kind: 'exec', command: ['kill', '-USR1', '1'], timeoutMs: DEFAULTS.hook.timeoutMs },
      { kind: 'http', url: 'http://127.0.0.1:8080/warm', method: DEFAULTS.hook.httpMethod, timeoutMs: DEFAULTS.hook.timeoutMs },
    ]);
  });

  it('take exactly one of exec and http', () => {
    const yaml = `
      processes:
        - name: job
          role: app
          command: job
          postStart: { timeout: 1s }
          preStop: { exec: "true", http: { url: "http://x/" } }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:5:5 processes[0].postStart: give one of exec or http',
      'demo.yaml:6:5 processes[0].preStop: give only one of exec or http; this has exec and http',
    ]);
  });

  it('say that exec or http is missing even when the timeout has a problem of its own', () => {
    const yaml = `
      processes:
        - name: job
          role: app
          command: job
          postStart: { timeout: soon }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:5:5 processes[0].postStart: give one of exec or http',
      'demo.yaml:5:18 processes[0].postStart.timeout: "soon" is not a duration; use e.g. 500ms, 5s, 1m',
    ]);
  });

  it('are shown by plan as exec: CMD, quoted like a shell, or http: METHOD URL', () => {
    expect(describeHook({ kind: 'exec', command: ['sh', '-c', 'kill -TERM 1'], timeoutMs: 1_000 })).toBe("exec: sh -c 'kill -TERM 1'");
    expect(describeHook({ kind: 'http', method: 'POST', url: 'http://127.0.0.1:15000/drain', timeoutMs: 1_000 })).toBe(
      'http: POST http://127.0.0.1:15000/drain',
    );
  });

  it('report a bad command, URL, method, timeout or key at its path', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          postStart: { exec: "sh -c 'x", timeout: 0s }
          preStop:
            http: { url: "https://127.0.0.1/quit", method: FETCH, body: x }
        - name: job
          role: app
          command: job
          preStop: { http: { url: "tcp://127.0.0.1:1" }, timeout: 10 }
    `;
    expect(problemsOf({ yaml })).toEqual([
      "demo.yaml:5:18 processes[0].postStart.exec: unbalanced quote: the ' at character 7 is never closed in: sh -c 'x",
      'demo.yaml:5:36 processes[0].postStart.timeout: "0s" is zero; give a duration of at least 1ms',
      'demo.yaml:7:15 processes[0].preStop.http.url: https hooks are not supported yet; use http:// (hooks reach processes inside the container, usually on 127.0.0.1)',
      'demo.yaml:7:46 processes[0].preStop.http.method: "FETCH" is not an HTTP method for a hook; use GET, POST, PUT, DELETE, PATCH or HEAD',
      'demo.yaml:7:61 processes[0].preStop.http.body: unknown key "body"; accepted here: url, method',
      'demo.yaml:11:24 processes[1].preStop.http.url: "tcp://127.0.0.1:1" is not an http:// URL; use http://HOST:PORT/PATH, e.g. http://127.0.0.1:8080/ready',
      'demo.yaml:11:52 processes[1].preStop.timeout: 10 has no unit; write e.g. 10s or 10ms',
    ]);
  });
});

describe('an http:// URL with a typo in its scheme', () => {
  it('says did you mean http://, in a hook and a stop endpoint alike', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          preStop: { http: { url: "htp://127.0.0.1:15000/drain" } }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:5:24 processes[0].preStop.http.url: "htp://127.0.0.1:15000/drain" is not an http:// URL (did you mean http://127.0.0.1:15000/drain?); use http://HOST:PORT/PATH, e.g. http://127.0.0.1:8080/ready',
    ]);
    expect(
      problemsOf({
        cli: {
          processes: [{ flag: '--external', value: 'mesh=istio' }],
          quit: ['mesh=hptt://127.0.0.1:15020/quitquitquit'],
          app: ['job'],
        },
      }),
    ).toEqual([
      '--quit mesh=hptt://127.0.0.1:15020/quitquitquit: "hptt://127.0.0.1:15020/quitquitquit" is not an http:// URL (did you mean http://127.0.0.1:15020/quitquitquit?); use http://HOST:PORT/PATH, e.g. http://127.0.0.1:8080/ready',
    ]);
  });
});

describe('drain', () => {
  it('is undefined unless given', () => {
    expect(load({ yaml: APP_ONLY }).drain).toBeUndefined();
  });

  it.each([
    ['drain: 5s', { kind: 'delay', ms: 5_000 }],
    ['drain: 0s', { kind: 'delay', ms: 0 }],
    ['drain: { exec: "sleep 5" }', { kind: 'hook', hook: { kind: 'exec', command: ['sleep', '5'], timeoutMs: DEFAULTS.hook.timeoutMs } }],
    [
      'drain: { http: { url: "http://127.0.0.1:15000/healthcheck/fail", method: POST }, timeout: 3s }',
      { kind: 'hook', hook: { kind: 'http', url: 'http://127.0.0.1:15000/healthcheck/fail', method: 'POST', timeoutMs: 3_000 } },
    ],
  ])('reads %s from the file', (line, drain) => {
    expect(load({ yaml: appOnlyWith(line) }).drain).toEqual(drain);
  });

  it.each([
    ['5s', { kind: 'delay', ms: 5_000 }],
    ['1m30s', { kind: 'delay', ms: 90_000 }],
    [
      `curl -X POST 'http://127.0.0.1:15000/drain'`,
      {
        kind: 'hook',
        hook: { kind: 'exec', command: ['curl', '-X', 'POST', 'http://127.0.0.1:15000/drain'], timeoutMs: DEFAULTS.hook.timeoutMs },
      },
    ],
    ['5x', { kind: 'hook', hook: { kind: 'exec', command: ['5x'], timeoutMs: DEFAULTS.hook.timeoutMs } }],
  ])('reads --drain %s as a delay when it is a duration, else as a command', (value, drain) => {
    expect(load({ cli: { drain: value, app: ['job'] } }).drain).toEqual(drain);
  });

  it('from the flag overrides the file', () => {
    expect(load({ yaml: appOnlyWith('drain: { exec: "sleep 5" }'), cli: { drain: '2s' } }).drain).toEqual({ kind: 'delay', ms: 2_000 });
  });

  it('reports a bare number, a string that is no duration, and a bad hook', () => {
    expect(problemsOf({ yaml: appOnlyWith('drain: 5') })).toEqual(['demo.yaml:1:1 drain: 5 has no unit; write e.g. 5s or 5ms']);
    expect(problemsOf({ yaml: appOnlyWith('drain: sleep 5') })).toEqual([
      'demo.yaml:1:1 drain: "sleep 5" is not a duration; use e.g. 500ms, 5s, 1m; to run a command, write drain: {exec: "sleep 5"}',
    ]);
    expect(problemsOf({ yaml: appOnlyWith('drain: { exec: [], timeout: 0s }') })).toEqual([
      'demo.yaml:1:10 drain.exec: is an empty list; give at least 1 item',
      'demo.yaml:1:20 drain.timeout: "0s" is zero; give a duration of at least 1ms',
    ]);
    expect(problemsOf({ yaml: appOnlyWith('drain: [5s]') })).toEqual(['demo.yaml:1:1 drain: expected a string or a mapping, got a list']);
  });

  it('reports a bare number or an empty command given to --drain, with the flag', () => {
    expect(problemsOf({ cli: { drain: '5', app: ['job'] } })).toEqual(['--drain 5: 5 has no unit; write e.g. 5s or 5ms']);
    // Blank in the file: no duration, and no command to suggest either.
    expect(problemsOf({ yaml: appOnlyWith('drain: " "') })).toEqual(['demo.yaml:1:1 drain: " " is not a duration; use e.g. 500ms, 5s, 1m']);
    expect(problemsOf({ cli: { drain: ' ', app: ['job'] } })).toEqual([
      '--drain  : the command is empty; give the program and its arguments, e.g. "envoy -c /etc/envoy.yaml"',
    ]);
  });
});

describe('--drain that looks like a duration', () => {
  it('reports a malformed duration instead of running a program named like it', () => {
    for (const value of ['-1s', '+5s', '1..5s', '5S']) {
      expect(problemsOf({ cli: { drain: value, app: ['job'] } })).toEqual([
        `--drain ${value}: "${value}" is not a duration; use e.g. 500ms, 5s, 1m`,
      ]);
    }
    expect(problemsOf({ cli: { drain: '1.5', app: ['job'] } })).toEqual(['--drain 1.5: 1.5 has no unit; write e.g. 1.5s or 1.5ms']);
  });
});

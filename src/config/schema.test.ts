import { describe, expect, it } from 'vitest';
import { load, problemsOf } from '../../test/support/config.ts';

describe('the schema check of the file', () => {
  it('reports unknown keys at every level, at the key, with the accepted keys and a suggestion', () => {
    const yaml = `
      grace: 5s
      procesess: []
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          readyness:
            probe: tcp://127.0.0.1:1
        - name: job
          role: app
          command: job
          readiness_: {}
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:1 procesess: unknown key "procesess" (did you mean processes?); accepted here: grace, logLevel, logFormat, statusAddr, terminationLog, control, announce, until, announcerUid, output, drain, rewrite, singleChild, parentDeathSignal, processes',
      // The keys accepted are those of the process's role; the suggestion is the closest field of any role.
      'demo.yaml:7:5 processes[0].readyness: unknown key "readyness" (did you mean readiness?); accepted here: name, role, command, env, cwd, user, group, after, readiness, liveness, restart, backoff, maxRestarts, fatal, postStart, preStop, stopSignal, grace, signalGroup, output',
      'demo.yaml:12:5 processes[1].readiness_: unknown key "readiness_" (did you mean readiness?); accepted here: name, role, command, env, cwd, user, group, after, liveness, restart, backoff, maxRestarts, postStart, preStop, stopSignal, grace, signalGroup, successCodes, output',
    ]);
  });

  it('reports a key named after an Object property (constructor, toString) as unknown, like any other', () => {
    const yaml = `
      processes:
        - name: job
          role: app
          command: job
          constructor: ""
          toString: 1
    `;
    expect(problemsOf({ yaml })).toEqual([
      expect.stringMatching(/^demo\.yaml:5:5 processes\[0\]\.constructor: unknown key "constructor"; accepted here: name, /),
      expect.stringMatching(/^demo\.yaml:6:5 processes\[0\]\.toString: unknown key "toString"; accepted here: name, /),
    ]);
  });

  it('reports unknown keys inside readiness without hiding the other readiness problems', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          readiness:
            probe: tcp://127.0.0.1:1
            interval: 1s
            period: 5x
        - name: job
          role: app
          command: job
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:7:7 processes[0].readiness.interval: unknown key "interval"; accepted here: probe, period, timeout, deadline, periodAfterStart',
      'demo.yaml:8:7 processes[0].readiness.period: "5x" is not a duration; use e.g. 500ms, 5s, 1m',
    ]);
  });

  it('reports unknown keys in nested mappings without hiding the other problems beside them', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          liveness:
            probe: { http: { url: "http://127.0.0.1/", expect: [200] } }
            interval: 1s
            period: 0s
          backoff: { initial: 5x, maximum: 1m }
          preStop: { exec: "", timout: 1s }
        - name: job
          role: app
          command: job
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:6:50 processes[0].liveness.probe.http.expect: unknown key "expect"; accepted here: url, headers, expectStatus',
      'demo.yaml:7:7 processes[0].liveness.interval: unknown key "interval"; accepted here: probe, period, timeout, failureThreshold, initialDelay',
      'demo.yaml:8:7 processes[0].liveness.period: "0s" is zero; give a duration of at least 1ms',
      'demo.yaml:9:16 processes[0].backoff.initial: "5x" is not a duration; use e.g. 500ms, 5s, 1m',
      'demo.yaml:9:29 processes[0].backoff.maximum: unknown key "maximum"; accepted here: initial, max, resetAfter',
      'demo.yaml:10:16 processes[0].preStop.exec: the command is empty; give the program and its arguments, e.g. "envoy -c /etc/envoy.yaml"',
      'demo.yaml:10:26 processes[0].preStop.timout: unknown key "timout" (did you mean timeout?); accepted here: exec, http, timeout',
    ]);
  });

  it('names the expected type, the value received and what is missing', () => {
    const yaml = `
      grace: [5s]
      logLevel: loud
      processes:
        - name: 7
          role: worker
          command: 42
        - role: app
          command: [python, 3]
        - just a string
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:1:1 grace: expected a string, got a list',
      'demo.yaml:2:1 logLevel: "loud" is not a log level; use trace, debug, info, warn, error, fatal, silent',
      'demo.yaml:4:5 processes[0].name: expected a string, got 7',
      'demo.yaml:5:5 processes[0].role: "worker" is not accepted; use init, sidecar, app, external',
      'demo.yaml:6:5 processes[0].command: expected a string or a list, got 42',
      'demo.yaml:7:5 processes[1].name: is required; give a string',
      'demo.yaml:8:23 processes[1].command[1]: expected a string, got 3',
      'demo.yaml:9:5 processes[2]: expected a mapping, got "just a string"',
    ]);
  });

  it('reports a missing readiness probe at the readiness key', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          readiness: { period: 1s }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual(['demo.yaml:5:5 processes[0].readiness.probe: is required; give a string or a mapping']);
  });

  it('reports only the role of a process without one whose other fields are all valid', () => {
    const yaml = `
      processes:
        - { name: proxy, command: envoy, stopSignal: QUIT }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual(['demo.yaml:2:5 processes[0].role: is required; use init, sidecar, app, external']);
  });

  it('wants a mapping at the top, and says so for an empty file', () => {
    expect(problemsOf({ yaml: '- a\n- b\n', cli: { app: ['job'] } })).toEqual(['demo.yaml:1:1: expected a mapping, got a list']);
    expect(problemsOf({ yaml: '', cli: { app: ['job'] } })).toEqual(['demo.yaml:1:1: expected a mapping, got an empty value (null)']);
  });

  it('says there is no app when the file has no list of processes and none is given after --', () => {
    // No entry is read then, so none may be an app whose role could not be read.
    const noApp = 'no app to run; give it after the options (sidecar-init [OPTIONS] -- APP [ARGS...]) or as a process with role: app';
    expect(problemsOf({ yaml: 'grace: 5s' })).toEqual([`demo.yaml:1:1 processes: ${noApp}`]);
    expect(problemsOf({ yaml: 'processes: 5' })).toEqual([
      'demo.yaml:1:1 processes: expected a list, got 5',
      `demo.yaml:1:1 processes: ${noApp}`,
    ]);
  });

  it('accepts numbers and booleans in env, as written in the file', () => {
    const yaml = `
      processes:
        - name: job
          role: app
          command: job
          env: { VERSION: 1.10, MASK: 0x1F, DEBUG: true, PORT: 8080, NAME: "x", YES: yes }
    `;
    expect(load({ yaml }).processes[0]!.env).toEqual({
      VERSION: '1.10',
      MASK: '0x1F',
      DEBUG: 'true',
      PORT: '8080',
      NAME: 'x',
      YES: 'yes',
    });
  });

  it('takes env values brought in by a merge key as written too', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          env: &common { RATIO: 1.50 }
        - name: job
          role: app
          command: job
          env: { <<: *common, OWN: 2.0 }
    `;
    expect(load({ yaml }).processes[1]!.env).toEqual({ RATIO: '1.50', OWN: '2.0' });
  });

  it('rejects an env value that is empty (null), a list, or a name with "="', () => {
    const yaml = `
      processes:
        - name: job
          role: app
          command: job
          env:
            EMPTY:
            LIST: [a]
            "A=B": x
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:6:7 processes[0].env.EMPTY: has no value; write "" for an empty string',
      'demo.yaml:7:7 processes[0].env.LIST: expected a string, a number or a boolean, got a list',
      'demo.yaml:8:7 processes[0].env["A=B"]: "A=B" is not a variable name; a name is not empty and has no "=" in it',
    ]);
  });
});

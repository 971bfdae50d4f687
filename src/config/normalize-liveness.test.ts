import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIVENESS_FAILURE_THRESHOLD,
  DEFAULT_LIVENESS_INITIAL_DELAY_MS,
  DEFAULT_LIVENESS_PERIOD_MS,
  DEFAULT_LIVENESS_TIMEOUT_MS,
} from './plan.ts';
import { load, problemsOf } from './test-support.ts';

describe('liveness', () => {
  it('applies the defaults from plan.ts and reads every field, on a sidecar and on the app', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          liveness: { probe: "tcp://127.0.0.1:15000" }
        - name: job
          role: app
          command: job
          liveness:
            probe: { http: { url: "http://127.0.0.1:8080/healthz", expectStatus: [200] } }
            period: 10s
            timeout: 2s
            failureThreshold: 5
            initialDelay: 30s
    `;
    const [proxy, job] = load({ yaml }).processes;
    expect(proxy!.liveness).toEqual({
      probe: { kind: 'tcp', host: '127.0.0.1', port: 15000 },
      periodMs: DEFAULT_LIVENESS_PERIOD_MS,
      timeoutMs: DEFAULT_LIVENESS_TIMEOUT_MS,
      failureThreshold: DEFAULT_LIVENESS_FAILURE_THRESHOLD,
      initialDelayMs: DEFAULT_LIVENESS_INITIAL_DELAY_MS,
    });
    expect(job!.liveness).toEqual({
      probe: { kind: 'http', url: 'http://127.0.0.1:8080/healthz', headers: {}, expectStatus: [200] },
      periodMs: 10_000,
      timeoutMs: 2_000,
      failureThreshold: 5,
      initialDelayMs: 30_000,
    });
  });

  it('takes a file probe but not a log probe, in either form', () => {
    const yaml = `
      processes:
        - name: a
          role: sidecar
          command: a
          liveness: { probe: "file:/tmp/alive" }
        - name: b
          role: sidecar
          command: b
          liveness: { probe: "log:started" }
        - name: job
          role: app
          command: job
          liveness: { probe: { log: started } }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:9:17 processes[1].liveness.probe: a log probe passes once and stays passed, so it cannot check liveness; use tcp, http, exec or file',
      'demo.yaml:13:17 processes[2].liveness.probe: a log probe passes once and stays passed, so it cannot check liveness; use tcp, http, exec or file',
    ]);
    const fileOnly = 'processes: [{ name: job, role: app, command: job, liveness: { probe: "file:/tmp/alive" } }]';
    expect(load({ yaml: fileOnly }).processes[0]!.liveness?.probe).toEqual({ kind: 'file', path: '/tmp/alive' });
  });

  it('reports each bad field at its key: zero timings, a threshold below 1 or not whole, a missing probe', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
          liveness:
            probe: exec:true
            period: 0s
            timeout: 1
            failureThreshold: 0
            initialDelay: soon
        - name: job
          role: app
          command: job
          liveness:
            failureThreshold: 1.5
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:7:7 processes[0].liveness.period: "0s" is zero; give a duration of at least 1ms',
      'demo.yaml:8:7 processes[0].liveness.timeout: 1 has no unit; write e.g. 1s or 1ms',
      'demo.yaml:9:7 processes[0].liveness.failureThreshold: 0 is not a failure threshold; use a whole number of 1 or more',
      'demo.yaml:10:7 processes[0].liveness.initialDelay: "soon" is not a duration; use e.g. 500ms, 5s, 1m',
      'demo.yaml:14:5 processes[1].liveness.probe: is required; give a string or a mapping',
      'demo.yaml:15:7 processes[1].liveness.failureThreshold: 1.5 is not a failure threshold; use a whole number of 1 or more',
    ]);
  });

  it('allows an initial delay of zero', () => {
    const yaml = `
      processes:
        - { name: job, role: app, command: job, liveness: { probe: "exec:true", initialDelay: 0s } }
    `;
    expect(load({ yaml }).processes[0]!.liveness?.initialDelayMs).toBe(0);
  });
});

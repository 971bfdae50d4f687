import { describe, expect, it } from 'vitest';
import { load, problemsOf } from './test-support.ts';

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

import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../plan/plan.ts';
import { load, problemsOf } from '../../test/support/config.ts';

const DEFAULT_BACKOFF = {
  initialBackoffMs: DEFAULTS.backoff.initialBackoffMs,
  maxBackoffMs: DEFAULTS.backoff.maxBackoffMs,
  resetAfterMs: DEFAULTS.backoff.resetAfterMs,
};

describe('restart', () => {
  it('defaults to always for a sidecar and never for an init step and the app, from the file and from flags', () => {
    const yaml = `
      processes:
        - { name: setup, role: init, command: setup }
        - { name: proxy, role: sidecar, command: envoy }
    `;
    const cli = {
      processes: [
        { flag: '--sidecar', value: 'log=tail' },
        { flag: '--init', value: 'migrate=m' },
      ] as const,
      app: ['job'],
    };
    expect(load({ yaml, cli }).processes.map((process) => [process.name, process.restart])).toEqual([
      ['setup', { policy: 'never', ...DEFAULT_BACKOFF, maxRestarts: undefined }],
      ['proxy', { policy: 'always', ...DEFAULT_BACKOFF, maxRestarts: undefined }],
      ['log', { policy: 'always', ...DEFAULT_BACKOFF, maxRestarts: undefined }],
      ['migrate', { policy: 'never', ...DEFAULT_BACKOFF, maxRestarts: undefined }],
      ['app', { policy: 'never', ...DEFAULT_BACKOFF, maxRestarts: undefined }],
    ]);
  });

  it('reads the policy, backoff and maxRestarts', () => {
    const yaml = `
      processes:
        - name: setup
          role: init
          command: setup
          restart: on-failure
          maxRestarts: 0
        - name: job
          role: app
          command: job
          restart: always
          backoff: { initial: 500ms, max: 30s, resetAfter: 1h }
          maxRestarts: 5
    `;
    const [setup, job] = load({ yaml }).processes;
    expect(setup!.restart).toEqual({ policy: 'on-failure', ...DEFAULT_BACKOFF, maxRestarts: 0 });
    expect(job!.restart).toEqual({
      policy: 'always',
      initialBackoffMs: 500,
      maxBackoffMs: 30_000,
      resetAfterMs: 3_600_000,
      maxRestarts: 5,
    });
  });

  it('reports an unknown policy, always on an init step, a bad maxRestarts and zero or unknown backoff fields', () => {
    const yaml = `
      processes:
        - name: setup
          role: init
          command: setup
          restart: always
          maxRestarts: -1
        - name: proxy
          role: sidecar
          command: envoy
          restart: sometimes
          backoff: { initial: 0s, reset: 1m }
          maxRestarts: 2.5
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:5:5 processes[0].restart: an init step is done once it exits 0, so it cannot restart always; use on-failure to retry a failing step',
      'demo.yaml:6:5 processes[0].maxRestarts: -1 is not a number of restarts; use a whole number of 0 or more',
      'demo.yaml:10:5 processes[1].restart: "sometimes" is not accepted; use always, on-failure, never',
      'demo.yaml:11:16 processes[1].backoff.initial: "0s" is zero; give a duration of at least 1ms',
      'demo.yaml:11:29 processes[1].backoff.reset: unknown key "reset"; accepted here: initial, max, resetAfter',
      'demo.yaml:12:5 processes[1].maxRestarts: 2.5 is not a number of restarts; use a whole number of 0 or more',
    ]);
  });

  it('wants backoff.initial at most backoff.max (equal is a constant delay), counting the defaults, and reports at the value written', () => {
    const yaml = `
      processes:
        - { name: a, role: sidecar, command: a, backoff: { initial: 2m, max: 1m } }
        - { name: b, role: sidecar, command: b, backoff: { initial: 2m } }
        - { name: c, role: sidecar, command: c, backoff: { max: 500ms } }
        - { name: d, role: sidecar, command: d, backoff: { initial: 1m, max: 1m } }
        - { name: e, role: sidecar, command: e, backoff: { max: 1s } }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:54 processes[0].backoff.initial: initial (2m) is longer than max (1m); the delay starts at initial and doubles up to max',
      'demo.yaml:3:54 processes[1].backoff.initial: initial (2m) is longer than max (1m, the default); the delay starts at initial and doubles up to max',
      'demo.yaml:4:54 processes[2].backoff.max: initial (1s, the default) is longer than max (500ms); the delay starts at initial and doubles up to max',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import type { Plan } from '../plan/plan.ts';
import { load } from '../../test/support/config.ts';

function afterOf(plan: Plan): Record<string, readonly string[]> {
  return Object.fromEntries(plan.processes.map((process) => [process.name, process.after]));
}

describe('the after lists of the plan', () => {
  it('without after anywhere: each entry waits for the one before it, the app for all, flags included', () => {
    const yaml = `
      processes:
        - { name: setup, role: init, command: setup }
        - { name: proxy, role: sidecar, command: envoy }
        - { name: job, role: app, command: job }
    `;
    const cli = { processes: [{ flag: '--sidecar', value: 'log=tail' }] as const };
    expect(afterOf(load({ yaml, cli }))).toEqual({
      setup: [],
      proxy: ['setup'],
      log: ['proxy'],
      job: ['setup', 'proxy', 'log'],
    });
  });

  it('with after anywhere: each entry waits for exactly its own list, none when it has none, the app for all', () => {
    const yaml = `
      processes:
        - { name: setup, role: init, command: setup }
        - { name: db, role: sidecar, command: postgres }
        - { name: cache, role: sidecar, command: redis }
        - { name: proxy, role: sidecar, command: envoy, after: [setup, db] }
        - { name: job, role: app, command: job }
    `;
    const cli = { processes: [{ flag: '--sidecar', value: 'log=tail' }] as const };
    expect(afterOf(load({ yaml, cli }))).toEqual({
      setup: [],
      db: [],
      cache: [],
      proxy: ['setup', 'db'],
      log: [],
      job: ['setup', 'db', 'cache', 'proxy', 'log'],
    });
  });

  it('with after on the app only: the app waits for its list and every other entry starts at once', () => {
    const yaml = `
      processes:
        - { name: setup, role: init, command: setup }
        - { name: proxy, role: sidecar, command: envoy }
        - { name: job, role: app, command: job, after: [proxy] }
    `;
    expect(afterOf(load({ yaml }))).toEqual({ setup: [], proxy: [], job: ['proxy'] });
  });

  it('counts an empty list as using after, which lets a process start at once', () => {
    const yaml = `
      processes:
        - { name: setup, role: init, command: setup }
        - { name: proxy, role: sidecar, command: envoy, after: [] }
        - { name: log, role: sidecar, command: tail, after: [setup] }
        - { name: job, role: app, command: job, after: [] }
    `;
    expect(afterOf(load({ yaml }))).toEqual({ setup: [], proxy: [], log: ['setup'], job: [] });
  });

  it('gives the app after -- every other entry when after is used, since it has no list of its own', () => {
    const yaml = `
      processes:
        - { name: setup, role: init, command: setup }
        - { name: proxy, role: sidecar, command: envoy, after: [setup] }
        - { name: job, role: app, command: old-job, after: [proxy] }
    `;
    expect(afterOf(load({ yaml, cli: { app: ['python', 'job.py'] } }))).toEqual({ setup: [], proxy: ['setup'], job: ['setup', 'proxy'] });
  });
});

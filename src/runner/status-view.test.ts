import { describe, expect, it } from 'vitest';
import { testPlan, testProcess } from '../../test/support/test-plan.ts';
import { createProcessGraph } from '../plan/process-graph.ts';
import type { LifecycleState, ProcState } from '../lifecycle/state.ts';
import { createInitialState } from '../lifecycle/state.ts';
import { describeLastExit, describeStatus } from './status-view.ts';

const plan = testPlan([testProcess('proxy', 'sidecar', { probe: true }), testProcess('migrate', 'init'), testProcess('job', 'app')]);
const graph = createProcessGraph(plan);

function stateWith(phase: LifecycleState['phase'], procs: Record<string, ProcState>, teardownStartedAt?: number): LifecycleState {
  const initial = createInitialState(plan);
  return { ...initial, phase, teardownStartedAt, procs: new Map([...initial.procs, ...Object.entries(procs)]) };
}

const running = (ready: boolean, postStartDone = true): ProcState => ({
  status: 'running',
  started: true,
  restarts: 0,
  spawnedAt: 0,
  ready,
  postStartDone,
  up: ready && postStartDone,
});

const facts = {
  spawns: new Map([
    ['proxy', 3],
    ['migrate', 1],
    ['job', 1],
  ]),
  lastExits: new Map([['migrate', describeLastExit({ kind: 'exited', code: 0 }, new Date('2026-01-01T00:00:00Z'))]]),
  pidOf: (name: string) => ({ proxy: 10, migrate: 11, job: 12 })[name],
  finishedAt: undefined,
  reapedOrphans: 4,
};

describe('describeStatus', () => {
  it('shows each process in plan order with its state, pid, readiness, every restart and its last exit', () => {
    const state = stateWith('running', {
      proxy: running(false),
      migrate: { status: 'exited', started: true, restarts: 0, exit: { kind: 'exited', code: 0 } },
      job: running(true),
    });
    expect(describeStatus(graph, state, facts, 1_000)).toEqual({
      phase: 'running',
      reapedOrphans: 4,
      teardownSeconds: undefined,
      processes: [
        {
          name: 'proxy',
          role: 'sidecar',
          state: 'running',
          pid: 10,
          gatesReadiness: true,
          probeReady: false,
          restarts: 2,
          lastExit: undefined,
        },
        {
          name: 'migrate',
          role: 'init',
          state: 'exited',
          pid: undefined,
          gatesReadiness: false,
          probeReady: false,
          restarts: 0,
          lastExit: { code: 0, signal: null, at: '2026-01-01T00:00:00.000Z' },
        },
        { name: 'job', role: 'app', state: 'running', pid: 12, gatesReadiness: true, probeReady: true, restarts: 0, lastExit: undefined },
      ],
    });
  });

  it('is not ready before a postStart has finished', () => {
    const state = stateWith('running', { proxy: running(true, false) });
    expect(describeStatus(graph, state, facts, 0).processes[0]?.probeReady).toBe(false);
  });

  it('counts teardown time while it runs, and stops counting once everything is down', () => {
    expect(describeStatus(graph, stateWith('stopping', {}, 1_000), facts, 3_500).teardownSeconds).toBe(2.5);
    expect(describeStatus(graph, stateWith('done', {}, 1_000), { ...facts, finishedAt: 2_000 }, 9_000).teardownSeconds).toBe(1);
  });

  it('describes a signal death without a code', () => {
    expect(describeLastExit({ kind: 'signaled', signal: 'SIGKILL' }, new Date(0))).toEqual({
      code: null,
      signal: 'SIGKILL',
      at: '1970-01-01T00:00:00.000Z',
    });
  });
});

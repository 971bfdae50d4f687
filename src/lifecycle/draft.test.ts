import { describe, expect, it } from 'vitest';
import { testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';
import { createDraft } from './draft.ts';
import { createInitialState, hasStarted, isAlive, type ProcState } from './state.ts';

describe('a draft', () => {
  it('refuses a name the state does not have, to read or to replace', () => {
    const draft = createDraft(createInitialState(plan([proc('app', 'app')])), 0);
    expect(() => draft.get('ghost')).toThrow('no process named ghost in the lifecycle state');
    expect(() => draft.put('ghost', { status: 'skipped' })).toThrow('no process named ghost in the lifecycle state');
  });

  it('becomes the next state with every change, and leaves the state it started from as it was', () => {
    const state = createInitialState(plan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    const draft = createDraft(state, 5);
    draft.put('proxy', { status: 'spawning', started: false, restarts: 0, spawnedBefore: false });
    draft.phase = 'stopping';
    draft.stopSignalsReceived = 1;
    draft.preStopsRunning.add('proxy');
    draft.externalsFound.add('proxy');
    draft.externalsLeftRunning.add('proxy');
    draft.effects.push({ type: 'spawn', name: 'proxy' });
    const { state: next, effects } = draft.finish();
    expect(next.procs.get('proxy')).toEqual({ status: 'spawning', started: false, restarts: 0, spawnedBefore: false });
    expect([next.phase, next.stopSignalsReceived]).toEqual(['stopping', 1]);
    expect([...next.preStopsRunning, ...next.externalsFound, ...next.externalsLeftRunning]).toEqual(['proxy', 'proxy', 'proxy']);
    expect(effects).toEqual([{ type: 'spawn', name: 'proxy' }]);
    expect(state.procs.get('proxy')).toEqual({ status: 'pending' });
    expect([state.phase, state.stopSignalsReceived, state.preStopsRunning.size, state.externalsFound.size]).toEqual(['starting', 0, 0, 0]);
    expect(state.externalsLeftRunning.size).toBe(0);
  });
});

describe('process states', () => {
  const spawning: ProcState = { status: 'spawning', started: false, restarts: 0, spawnedBefore: false };
  const running: ProcState = {
    status: 'running',
    started: true,
    restarts: 0,
    spawnedAt: 0,
    ready: true,
    postStartDone: true,
    up: true,
  };
  const stopping: ProcState = { status: 'stopping', started: true, restarts: 0, spawnedAt: 0, killedAsUnhealthy: false };
  const backoff: ProcState = {
    status: 'backoff',
    started: true,
    restarts: 1,
    exit: { kind: 'exited', code: 1 },
    delayOver: false,
    groupGone: false,
  };
  const exited: ProcState = { status: 'exited', started: true, restarts: 0, exit: { kind: 'exited', code: 0 } };

  it('are alive while spawning, running or stopping, and not pending, skipped, in backoff or exited', () => {
    expect([spawning, running, stopping].map(isAlive)).toEqual([true, true, true]);
    expect([{ status: 'pending' } as ProcState, { status: 'skipped' } as ProcState, backoff, exited].map(isAlive)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('have started once a run was up, which a pending or skipped one never was', () => {
    expect(hasStarted({ status: 'pending' })).toBe(false);
    expect(hasStarted({ status: 'skipped' })).toBe(false);
    expect(hasStarted(spawning)).toBe(false);
    expect(hasStarted(running)).toBe(true);
    expect(hasStarted({ ...exited, started: false })).toBe(false);
    expect(hasStarted(exited)).toBe(true);
  });
});

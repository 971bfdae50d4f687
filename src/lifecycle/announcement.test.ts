import { describe, expect, it } from 'vitest';
import { testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';
import { hasReached } from '../plan/announced-state.ts';
import { announcementOf } from './announcement.ts';
import { decide } from './decide.ts';
import type { Effect, LifecycleEventBody } from './events.ts';
import { createProcessGraph } from '../plan/process-graph.ts';
import type { LifecycleState } from './state.ts';
import { createInitialState } from './state.ts';

function createDriver() {
  const testPlan = plan([proc('proxy', 'sidecar', { probe: true }), proc('app', 'app')]);
  const context = { graph: createProcessGraph(testPlan), graceMs: testPlan.graceMs, hasDrain: false, signalRewrites: {} };
  let state: LifecycleState = createInitialState(testPlan);
  return {
    send(...events: LifecycleEventBody[]): Effect[] {
      const effects: Effect[] = [];
      for (const event of events) {
        const decision = decide(context, state, { ...event, at: 0 });
        state = decision.state;
        effects.push(...decision.effects);
      }
      return effects;
    },
    announced: () => announcementOf(context, state),
  };
}

describe('the announced state', () => {
  it('goes starting → ready (the app spawned) → stopping → exited with the exit code', () => {
    const d = createDriver();
    expect(d.announced()).toEqual({ state: 'starting' });
    d.send({ type: 'boot' }, { type: 'spawned', name: 'proxy' }, { type: 'readiness', name: 'proxy', ready: true });
    expect(d.announced()).toEqual({ state: 'starting' });
    d.send({ type: 'spawned', name: 'app' });
    expect(d.announced()).toEqual({ state: 'ready' });
    d.send({ type: 'signal', signal: 'SIGTERM' });
    expect(d.announced()).toEqual({ state: 'stopping' });
    // The app is down: exited at once, while this container's sidecars still stop.
    d.send({ type: 'exited', name: 'app', status: { kind: 'exited', code: 3 } });
    expect(d.announced()).toEqual({ state: 'exited', exitCode: 3 });
  });

  it('says exited with the failure code when startup fails before the app ran', () => {
    const d = createDriver();
    d.send({ type: 'boot' }, { type: 'spawned', name: 'proxy' }, { type: 'signal', signal: 'SIGTERM' });
    expect(d.announced()).toEqual({ state: 'exited', exitCode: 143 });
  });
});

describe('--until', () => {
  it('stops the app, then the sidecars, and exits 0 whatever the app made of its stop signal', () => {
    const d = createDriver();
    d.send(
      { type: 'boot' },
      { type: 'spawned', name: 'proxy' },
      { type: 'readiness', name: 'proxy', ready: true },
      { type: 'spawned', name: 'app' },
    );
    const effects = d.send({ type: 'until-reached', file: '/handoff/app', state: 'exited' });
    expect(effects).toContainEqual({ type: 'signal', name: 'app', signal: 'SIGTERM', purpose: 'stop' });
    d.send({ type: 'exited', name: 'app', status: { kind: 'signaled', signal: 'SIGTERM' } });
    expect(d.send({ type: 'exited', name: 'proxy', status: { kind: 'exited', code: 0 } })).toContainEqual({ type: 'finish', exitCode: 0 });
  });

  it('is ignored once teardown has begun', () => {
    const d = createDriver();
    d.send(
      { type: 'boot' },
      { type: 'spawned', name: 'proxy' },
      { type: 'readiness', name: 'proxy', ready: true },
      { type: 'spawned', name: 'app' },
    );
    d.send({ type: 'exited', name: 'app', status: { kind: 'exited', code: 5 } });
    d.send({ type: 'until-reached', file: '/handoff/app', state: 'exited' });
    expect(d.send({ type: 'exited', name: 'proxy', status: { kind: 'exited', code: 0 } })).toContainEqual({ type: 'finish', exitCode: 5 });
  });

  it('is reached at the state waited for or any later one', () => {
    expect(hasReached('exited', 'ready')).toBe(true);
    expect(hasReached('ready', 'ready')).toBe(true);
    expect(hasReached('starting', 'ready')).toBe(false);
    expect(hasReached('stopping', 'exited')).toBe(false);
  });
});

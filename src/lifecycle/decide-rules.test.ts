import { describe, expect, it } from 'vitest';
import { createDriver } from '../../test/support/decide-driver.ts';
import { TEST_HOOK as hook, testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import { forwardRoute, isHurried } from './decide.ts';
import type { LifecycleEventBody } from './events.ts';

// Each rule of decide.ts itself (the table of contents the step files hang
// from) on its own: what still counts once everything is down, which timers
// and ends count in which phase, where a signal goes while the app stops.

const exited = (code: number): ExitStatus => ({ kind: 'exited', code });
const signaled = (signal: NodeJS.Signals): ExitStatus => ({ kind: 'signaled', signal });
const ready = (name: string): LifecycleEventBody => ({ type: 'readiness', name, ready: true });

function done() {
  const d = createDriver(plan([proc('app', 'app')]));
  d.send({ type: 'boot' }, d.spawned('app'), d.exited('app', exited(0)));
  expect(d.state.phase).toBe('done');
  return d;
}

describe('decide, rule by rule', () => {
  it('gives a spawn that failed no exited line of its own: the line is where the spawn failed', () => {
    const d = createDriver(plan([proc('app', 'app')]));
    d.send({ type: 'boot' }, d.exited('app', { kind: 'spawn-failed', code: 127, reason: 'app: not found' }));
    expect(d.lines.filter((line) => line.kind === 'exited')).toEqual([]);
    const ran = createDriver(plan([proc('app', 'app')]));
    ran.send({ type: 'boot' }, ran.spawned('app'), ran.exited('app', exited(3)));
    expect(ran.lines.filter((line) => line.kind === 'exited')).toEqual([{ kind: 'exited', name: 'app', status: exited(3) }]);
  });

  it('once everything is down, a forwarded signal and any other event say nothing; a signal not forwarded is told', () => {
    const d = done();
    d.send({ type: 'signal', signal: 'SIGHUP', forwarded: true });
    expect(d.lines).toEqual([]);
    d.send({ type: 'timer', timer: { kind: 'grace' } }, ready('app'));
    expect(d.lines).toEqual([]);
    d.send({ type: 'signal', signal: 'SIGHUP' });
    expect(d.lines).toEqual([{ kind: 'signal-received', signal: 'SIGHUP' }]);
  });

  it('ends the run on --until while sidecars are still starting, as while the app runs', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), { type: 'until-reached', file: '/run/peer', state: 'exited' });
    expect(d.state.phase).toBe('stopping');
    expect(d.state.stopReason).toEqual({ kind: 'until', file: '/run/peer', state: 'exited' });
  });

  it('passes a signal on to the app while it is being stopped, not once it is down', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'), { type: 'signal', signal: 'SIGTERM' });
    const procOf = (name: string) => d.state.procs.get(name)!;
    expect(procOf('app')).toMatchObject({ status: 'stopping' });
    expect(forwardRoute(d.context, procOf, 'SIGHUP')).toEqual({ name: 'app', signal: 'SIGHUP' });
    d.send(d.exited('app', signaled('SIGTERM')));
    expect(forwardRoute(d.context, procOf, 'SIGHUP')).toBeUndefined();
  });

  it('is hurried by a second stop signal during teardown as once everything is down', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'), { type: 'signal', signal: 'SIGTERM' });
    expect(isHurried(d.state)).toBe(false);
    d.send({ type: 'signal', signal: 'SIGTERM' });
    expect(d.state.phase).toBe('stopping');
    expect(isHurried(d.state)).toBe(true);
  });

  it('begins the preStop of a run only when its spawn is confirmed, not on a spawned event for a run already up', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { preStop: hook }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'), { type: 'signal', signal: 'SIGTERM' });
    // proxy's preStop is over; it waits for the app, which still runs.
    d.send({ type: 'hook-done', name: 'proxy', hook: 'preStop', ok: true });
    expect(d.state.procs.get('proxy')).toMatchObject({ status: 'running' });
    expect(d.send(d.spawned('proxy'))).toEqual([]);
  });

  it('a grace or kill timer that fires outside teardown changes nothing', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'));
    expect(d.send({ type: 'timer', timer: { kind: 'grace' } }, { type: 'timer', timer: { kind: 'kill' } })).toEqual([]);
    expect(d.state.phase).toBe('running');
  });
});

import { describe, expect, it } from 'vitest';
import { TEST_GRACE_MS, TEST_ISTIO_EXTERNAL, testExternal, testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';
import { KILL_AFTER_GRACE_MS } from './decide.ts';
import { createDriver } from '../../test/support/decide-driver.ts';
import type { Effect, LifecycleEventBody } from './events.ts';

// role external in the reducer: nothing is spawned; it is looked for and probed
// in its turn, gates what comes after it like a sidecar, and is stopped in its
// reverse turn through the stop executor, within the one budget.

const external = testExternal;

/** An external without a probe of its own: its readiness is the presence of a matching process. */
function presenceExternal(name: string) {
  const spec = external(name);
  const readiness = spec.readiness && { ...spec.readiness, probe: { kind: 'process' as const, match: TEST_ISTIO_EXTERNAL.match } };
  return { ...spec, readiness };
}

const deadline = (name: string): LifecycleEventBody => ({ type: 'timer', timer: { kind: 'deadline', name } });
const found = (name: string): LifecycleEventBody => ({ type: 'external-found', name });
const stopped = (name: string): LifecycleEventBody => ({ type: 'external-stopped', name, outcome: 'stopped' });
const leftRunning = (name: string): LifecycleEventBody => ({ type: 'external-stopped', name, outcome: 'left-running' });
const ready = (name: string): LifecycleEventBody => ({ type: 'readiness', name, ready: true });
const appExited = (code: number): LifecycleEventBody => ({ type: 'exited', name: 'app', status: { kind: 'exited', code } });
const types = (effects: readonly Effect[]) => effects.map((effect) => ('name' in effect ? `${effect.type} ${effect.name}` : effect.type));

describe('an external in the startup order', () => {
  it('is looked for and probed in its turn, never spawned; the init step after it waits until it is ready', () => {
    const d = createDriver(plan([external('mesh'), proc('migrate', 'init'), proc('app', 'app')]));
    expect(d.send({ type: 'boot' })).toEqual([
      { type: 'watch-external', name: 'mesh' },
      { type: 'start-watch', name: 'mesh', watch: 'readiness' },
      { type: 'start-timer', timer: { kind: 'deadline', name: 'mesh' }, ms: 1_000 },
    ]);
    expect(d.send(found('mesh'))).toEqual([]);
    expect(d.send(ready('mesh'))).toEqual([
      { type: 'cancel-timer', timer: { kind: 'deadline', name: 'mesh' } },
      { type: 'spawn', name: 'migrate' },
    ]);
  });

  it('without a probe of its own, only its presence probe looks for it: /proc is searched once per period', () => {
    const d = createDriver(plan([presenceExternal('mesh'), proc('app', 'app')]));
    expect(d.send({ type: 'boot' })).toEqual([
      { type: 'start-watch', name: 'mesh', watch: 'readiness' },
      { type: 'start-timer', timer: { kind: 'deadline', name: 'mesh' }, ms: 1_000 },
    ]);
  });

  it('an optional external that never appeared is skipped at its deadline and the rest goes on', () => {
    const d = createDriver(plan([external('mesh', { optional: true }), proc('app', 'app')]));
    d.send({ type: 'boot' });
    expect(d.send(deadline('mesh'))).toEqual([
      { type: 'stop-watch', name: 'mesh', watch: 'readiness' },
      { type: 'spawn', name: 'app' },
    ]);
    expect(d.lines).toEqual([{ kind: 'external-skipped', name: 'mesh', why: 'absent' }]);
    // Teardown has nothing to stop for it.
    d.send({ type: 'spawned', name: 'app' });
    expect(d.send(appExited(0))).toContainEqual({ type: 'finish', exitCode: 0 });
  });

  it('found but not ready, optional or not, fails startup with exit 1, and is still stopped', () => {
    const d = createDriver(plan([external('mesh', { optional: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, found('mesh'));
    d.advance(1_000);
    const effects = d.send(deadline('mesh'));
    expect(types(effects)).toContain('stop-external mesh');
    expect(d.state.stopReason).toEqual({ kind: 'external-failed', name: 'mesh', reason: 'found but not ready within its 1000ms deadline' });
    expect(d.send(stopped('mesh'))).toEqual([{ type: 'finish', exitCode: 1 }]);
  });

  it('never found and not optional: startup fails naming it', () => {
    const d = createDriver(plan([external('mesh'), proc('app', 'app')]));
    d.send({ type: 'boot' });
    d.send(deadline('mesh'));
    expect(d.state.stopReason).toMatchObject({ reason: 'no matching process appeared within its 1000ms deadline' });
  });
});

describe('an external in teardown', () => {
  function startedPod(externals: ReturnType<typeof external>[]) {
    const d = createDriver(plan([...externals, proc('app', 'app')]));
    d.send({ type: 'boot' });
    for (const entry of externals) d.send(found(entry.name), ready(entry.name));
    d.send({ type: 'spawned', name: 'app' });
    return d;
  }

  it('is stopped after the app, in reverse order, each with what is left of the budget; the app’s code is the exit code', () => {
    const d = startedPod([external('db'), external('mesh')]);
    d.advance(5_000);
    expect(d.send(appExited(3))).toContainEqual({ type: 'stop-external', name: 'mesh', budgetMs: TEST_GRACE_MS });
    d.advance(2_000);
    expect(d.send(stopped('mesh'))).toEqual([{ type: 'stop-external', name: 'db', budgetMs: TEST_GRACE_MS - 2_000 }]);
    expect(d.send(stopped('db'))).toEqual([{ type: 'finish', exitCode: 3 }]);
  });

  it('on SIGTERM the app stops first, then the external', () => {
    const d = startedPod([external('mesh')]);
    expect(types(d.send({ type: 'signal', signal: 'SIGTERM' }))).toEqual(['start-timer', 'stop-watch mesh', 'signal app']);
    expect(types(d.send({ type: 'exited', name: 'app', status: { kind: 'signaled', signal: 'SIGTERM' } }))).toContain('stop-external mesh');
    expect(d.send(stopped('mesh'))).toEqual([{ type: 'finish', exitCode: 143 }]);
  });

  it('stopOnFailure: false leaves it running when the exit code is not 0, and stops it when it is', () => {
    const failing = startedPod([external('mesh', { stopOnFailure: false })]);
    expect(failing.send(appExited(1))).toContainEqual({ type: 'finish', exitCode: 1 });
    expect(failing.lines).toContainEqual({ kind: 'external-skipped', name: 'mesh', why: 'kept-on-failure' });
    const passing = startedPod([external('mesh', { stopOnFailure: false })]);
    expect(types(passing.send(appExited(0)))).toContain('stop-external mesh');
  });

  it('stop: none leaves it running', () => {
    const d = startedPod([external('mesh', { stop: { kind: 'none' } })]);
    expect(d.send(appExited(0))).toContainEqual({ type: 'finish', exitCode: 0 });
    expect(d.lines).toContainEqual({ kind: 'external-skipped', name: 'mesh', why: 'stop-none' });
  });

  it('when the budget runs out one still waiting gets its stop at once; a second SIGTERM kills what is stopping', () => {
    // The app ignores SIGTERM: the budget runs out while the external still waits behind it.
    const d = startedPod([external('mesh')]);
    d.send({ type: 'signal', signal: 'SIGTERM' });
    const expired = d.send({ type: 'timer', timer: { kind: 'grace' } });
    expect(expired).toContainEqual({ type: 'stop-external', name: 'mesh', budgetMs: KILL_AFTER_GRACE_MS });
    // Only its stop executor acts on it: the SIGTERM and the SIGKILL that end the budget go to the app alone.
    expect(types(expired.filter((effect) => effect.type === 'signal'))).toEqual(['signal app']);
    const killed = d.send({ type: 'signal', signal: 'SIGTERM' });
    expect(killed).toContainEqual({ type: 'kill-external', name: 'mesh' });
    expect(types(killed.filter((effect) => effect.type === 'signal'))).toEqual(['signal app']);
  });

  it('stopOnFailure: false is kept when the budget runs out before its turn, and when a second SIGTERM comes', () => {
    // The app ignores SIGTERM: sidecar-init will exit non-zero, and the budget runs out while the external waits behind it.
    const expired = startedPod([external('mesh', { stopOnFailure: false })]);
    expired.send({ type: 'signal', signal: 'SIGTERM' });
    const effects = expired.send({ type: 'timer', timer: { kind: 'grace' } });
    expect(expired.lines).toContainEqual({ kind: 'external-skipped', name: 'mesh', why: 'kept-on-failure' });
    expect(types(effects)).not.toContain('stop-external mesh');
    const twice = startedPod([external('mesh', { stopOnFailure: false })]);
    twice.send({ type: 'signal', signal: 'SIGTERM' });
    const killed = twice.send({ type: 'signal', signal: 'SIGTERM' });
    expect(twice.lines).toContainEqual({ kind: 'external-skipped', name: 'mesh', why: 'kept-on-failure' });
    expect(types(killed)).not.toContain('stop-external mesh');
    expect(twice.send({ type: 'exited', name: 'app', status: { kind: 'signaled', signal: 'SIGKILL' } })).toContainEqual({
      type: 'finish',
      exitCode: 137,
    });
  });

  it('stop: none is left alone when hurried too, never handed to the stop executor', () => {
    const d = startedPod([external('mesh', { stop: { kind: 'none' } })]);
    d.send({ type: 'signal', signal: 'SIGTERM' });
    const effects = d.send({ type: 'timer', timer: { kind: 'grace' } });
    expect(d.lines).toContainEqual({ kind: 'external-skipped', name: 'mesh', why: 'stop-none' });
    expect(types(effects)).not.toContain('stop-external mesh');
  });

  it('one left running fails a run that would exit 0 (exit 1); a non-zero code of the app is kept', () => {
    const passing = startedPod([external('mesh')]);
    passing.send(appExited(0));
    expect(passing.send(leftRunning('mesh'))).toEqual([{ type: 'finish', exitCode: 1 }]);
    const failing = startedPod([external('mesh')]);
    failing.send(appExited(3));
    expect(failing.send(leftRunning('mesh'))).toEqual([{ type: 'finish', exitCode: 3 }]);
  });
});

describe('an external, rule by rule', () => {
  const EXITED_CLEANLY = { kind: 'exited', code: 0 } as const;

  it('is not ready when its turn comes, whatever it is found to be, until its probe says so', () => {
    const d = createDriver(plan([external('mesh'), proc('app', 'app')]));
    d.send({ type: 'boot' }, found('mesh'));
    expect(d.state.procs.get('mesh')).toMatchObject({ status: 'running', ready: false, up: false });
  });

  it('announced by its own file: the file is how it is found, no search of /proc besides', () => {
    const spec = external('mesh');
    const announced = {
      ...spec,
      readiness: spec.readiness && { ...spec.readiness, probe: { kind: 'announced' as const, file: '/run/mesh' } },
    };
    const d = createDriver(plan([announced, proc('app', 'app')]));
    expect(types(d.send({ type: 'boot' }))).toEqual(['start-watch mesh', 'start-timer']);
  });

  it('skipped as absent, left alone by stop: none, or stopped: each ends exited cleanly, never started or as it was', () => {
    const absent = createDriver(plan([external('mesh', { optional: true }), proc('app', 'app')]));
    absent.send({ type: 'boot' }, deadline('mesh'));
    expect(absent.state.procs.get('mesh')).toEqual({ status: 'exited', started: false, restarts: 0, exit: EXITED_CLEANLY });

    const kept = createDriver(plan([external('mesh', { stop: { kind: 'none' } }), proc('app', 'app')]));
    kept.send({ type: 'boot' }, found('mesh'), ready('mesh'), { type: 'spawned', name: 'app' }, appExited(0));
    expect(kept.state.procs.get('mesh')).toEqual({ status: 'exited', started: true, restarts: 0, exit: EXITED_CLEANLY });

    const stoppedOne = createDriver(plan([external('mesh'), proc('app', 'app')]));
    stoppedOne.send({ type: 'boot' }, found('mesh'), ready('mesh'), { type: 'spawned', name: 'app' }, appExited(0));
    expect(stoppedOne.state.procs.get('mesh')).toMatchObject({ status: 'stopping' });
    stoppedOne.send(stopped('mesh'));
    expect(stoppedOne.state.procs.get('mesh')).toEqual({ status: 'exited', started: true, restarts: 0, exit: EXITED_CLEANLY });
  });

  it('a stop outcome for an external that is not being stopped changes nothing', () => {
    const d = createDriver(plan([external('mesh', { optional: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, deadline('mesh'), { type: 'spawned', name: 'app' });
    const before = d.state.procs.get('mesh');
    d.send(leftRunning('mesh'));
    expect(d.state.procs.get('mesh')).toEqual(before);
    // Not counted as left running: the app's 0 stays the exit code.
    expect(d.send(appExited(0))).toContainEqual({ type: 'finish', exitCode: 0 });
  });

  it('when the budget runs out while it is being stopped, its executor keeps its own end; the kill that follows kills it', () => {
    const d = createDriver(plan([external('mesh'), proc('app', 'app')]));
    d.send({ type: 'boot' }, found('mesh'), ready('mesh'), { type: 'spawned', name: 'app' }, appExited(0));
    expect(d.state.procs.get('mesh')).toMatchObject({ status: 'stopping' });
    expect(types(d.send({ type: 'timer', timer: { kind: 'grace' } }))).not.toContain('kill-external mesh');
    expect(types(d.send({ type: 'timer', timer: { kind: 'kill' } }))).toContain('kill-external mesh');
  });

  it('one already stopped is not killed when the budget runs out and the kill comes', () => {
    const d = createDriver(plan([external('db'), external('mesh'), proc('app', 'app')]));
    d.send({ type: 'boot' }, found('db'), ready('db'), found('mesh'), ready('mesh'), { type: 'spawned', name: 'app' }, appExited(0));
    d.send(stopped('mesh'));
    expect(d.state.procs.get('mesh')).toMatchObject({ status: 'exited' });
    const hurried = [...d.send({ type: 'timer', timer: { kind: 'grace' } }), ...d.send({ type: 'timer', timer: { kind: 'kill' } })];
    expect(types(hurried)).not.toContain('kill-external mesh');
    expect(types(hurried)).toContain('kill-external db');
  });
});

import { describe, expect, it } from 'vitest';
import { createDriver } from '../../test/support/decide-driver.ts';
import { TEST_HOOK as hook, TEST_LIVENESS, testExternal, testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import type { Effect, LifecycleEventBody } from './events.ts';

// Each rule of startup.ts on its own: what gates a start, what a late or stale
// event may no longer do, and what a failed postStart or liveness probe does.
// decide.test.ts walks the common startup paths; these are the edges its
// assertions let through.

const exited = (code: number): ExitStatus => ({ kind: 'exited', code });
const ready = (name: string, isReady = true): LifecycleEventBody => ({ type: 'readiness', name, ready: isReady });
const hookDone = (name: string, ok: boolean): LifecycleEventBody => ({ type: 'hook-done', name, hook: 'postStart', ok });
const livenessFailed = (name: string): LifecycleEventBody => ({ type: 'liveness-failed', name, reason: 'probe failed' });
const timer = (kind: 'deadline' | 'restart', name: string): LifecycleEventBody => ({ type: 'timer', timer: { kind, name } });
const unhealthy = (effects: readonly Effect[]) => effects.filter((effect) => effect.type === 'signal' && effect.purpose === 'unhealthy');
describe('startup, rule by rule', () => {
  it('spawns nothing more once teardown began, whatever becomes ready then', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), { type: 'signal', signal: 'SIGTERM' });
    expect(d.send(ready('proxy'))).not.toContainEqual({ type: 'spawn', name: 'app' });
  });

  it('starts an entry the app does not wait for once its own dependency is up, after the app is running', () => {
    const d = createDriver(
      plan([
        proc('slow', 'sidecar', { probe: true, after: [] }),
        proc('late', 'sidecar', { after: ['slow'] }),
        proc('app', 'app', { after: [] }),
      ]),
    );
    d.send({ type: 'boot' }, d.spawned('slow'), d.spawned('app'));
    expect(d.state.phase).toBe('running');
    expect(d.send(ready('slow'))).toContainEqual({ type: 'spawn', name: 'late' });
  });

  it('a spawned event for a run that is not spawning changes nothing', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'));
    const before = d.state.procs.get('proxy');
    expect(d.send(d.spawned('proxy'))).toEqual([]);
    expect(d.state.procs.get('proxy')).toEqual(before);
  });

  it('a run spawned after teardown began is neither probed nor given its postStart', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true, postStart: hook }), proc('app', 'app')]));
    d.send({ type: 'boot' }, { type: 'signal', signal: 'SIGTERM' });
    const effects = d.send(d.spawned('proxy'));
    expect(
      effects.filter((effect) => effect.type === 'start-watch' || effect.type === 'run-hook' || effect.type === 'start-timer'),
    ).toEqual([]);
  });

  it('a readiness event for a process that is not running is not kept', () => {
    const d = createDriver(plan([proc('step', 'init'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('step'), d.exited('step', exited(0)));
    d.send(ready('step'));
    expect(d.state.procs.get('step')).not.toHaveProperty('ready');
  });

  it('a postStart that fails kills its process as unhealthy; one that ends during teardown does nothing', () => {
    const failing = createDriver(plan([proc('proxy', 'sidecar', { postStart: hook }), proc('app', 'app')]));
    failing.send({ type: 'boot' }, failing.spawned('proxy'));
    expect(failing.send(hookDone('proxy', false))).toEqual([
      { type: 'signal', name: 'proxy', signal: 'SIGTERM', purpose: 'unhealthy' },
      { type: 'start-timer', timer: { kind: 'process-grace', name: 'proxy' }, ms: expect.any(Number) },
    ]);
    for (const ok of [true, false]) {
      const late = createDriver(plan([proc('proxy', 'sidecar', { postStart: hook }), proc('app', 'app')]));
      late.send({ type: 'boot' }, late.spawned('proxy'), { type: 'signal', signal: 'SIGTERM' });
      const effects = late.send(hookDone('proxy', ok));
      expect(unhealthy(effects)).toEqual([]);
      expect(effects).not.toContainEqual({ type: 'start-watch', name: 'proxy', watch: 'liveness' });
      expect(late.lines).not.toContainEqual({ kind: 'up', name: 'proxy' });
    }
  });

  it('a liveness failure counts only once the process is up, and not during teardown', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true, liveness: TEST_LIVENESS }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'));
    expect(d.send(livenessFailed('proxy'))).toEqual([]);
    d.send(ready('proxy'), d.spawned('app'));
    const teardown = createDriver(plan([proc('proxy', 'sidecar', { probe: true, liveness: TEST_LIVENESS }), proc('app', 'app')]));
    teardown.send({ type: 'boot' }, teardown.spawned('proxy'), ready('proxy'), teardown.spawned('app'), {
      type: 'signal',
      signal: 'SIGTERM',
    });
    expect(unhealthy(teardown.send(livenessFailed('proxy')))).toEqual([]);
    // And up, outside teardown, it does.
    expect(unhealthy(d.send(livenessFailed('proxy')))).toHaveLength(1);
  });

  it('a restart timer or a swept group for a process that is not in backoff changes nothing', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'));
    const before = d.state.procs.get('proxy');
    expect(d.send(timer('restart', 'proxy'), d.swept('proxy'))).toEqual([]);
    expect(d.state.procs.get('proxy')).toEqual(before);
  });

  it('a readiness deadline is missed only by a sidecar not yet started, and not during teardown', () => {
    const started = createDriver(plan([proc('proxy', 'sidecar', { probe: true }), proc('app', 'app')]));
    started.send({ type: 'boot' }, started.spawned('proxy'), ready('proxy'), started.spawned('app'));
    started.send(timer('deadline', 'proxy'));
    expect(started.state.phase).toBe('running');
    const stopping = createDriver(plan([proc('proxy', 'sidecar', { probe: true }), proc('app', 'app')]));
    stopping.send({ type: 'boot' }, stopping.spawned('proxy'), { type: 'signal', signal: 'SIGTERM' });
    stopping.send(timer('deadline', 'proxy'));
    // Teardown began once, on the signal: the deadline gives it no second reason.
    expect(stopping.lines.filter((line) => line.kind === 'teardown')).toEqual([]);
    expect(stopping.state.phase).toBe('stopping');
  });

  it('logs an external up as it does a sidecar, once it is found and ready', () => {
    const d = createDriver(plan([testExternal('mesh'), proc('app', 'app')]));
    d.send({ type: 'boot' }, { type: 'external-found', name: 'mesh' }, ready('mesh'));
    expect(d.lines).toContainEqual({ kind: 'up', name: 'mesh' });
  });

  it('a readiness that turns false does not mark a process up', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'));
    expect(d.send(ready('proxy', false))).toEqual([]);
    expect(d.state.procs.get('proxy')).toMatchObject({ up: false, ready: false });
  });

  it('a postStart that ends during the drain, its process still up for the app, does not mark it up', () => {
    // The app does not wait for the proxy, so it runs while the proxy's postStart does; during the drain nothing is stopped yet,
    // and teardown's cancel of the hook may cross the hook's own end.
    const d = createDriver(
      plan([proc('proxy', 'sidecar', { postStart: hook, after: [] }), proc('app', 'app', { after: [] })], {
        drain: { kind: 'delay', ms: 500 },
      }),
    );
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'), { type: 'signal', signal: 'SIGTERM' });
    expect(d.state.procs.get('proxy')).toMatchObject({ status: 'running' });
    d.send(hookDone('proxy', true));
    expect(d.lines).not.toContainEqual({ kind: 'up', name: 'proxy' });
    expect(d.state.procs.get('proxy')).toMatchObject({ up: false });
  });
});

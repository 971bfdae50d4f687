import { describe, expect, it } from 'vitest';
import { createDriver } from '../../test/support/decide-driver.ts';
import { testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import type { Effect } from './events.ts';

// Each rule of teardown.ts on its own: what the start of teardown cancels,
// when there is a drain, what a rewrite to none sends, what a timer that
// comes late may still do. decide.test.ts walks the common teardowns; these
// are the edges its assertions let through.

const exited = (code: number): ExitStatus => ({ kind: 'exited', code });
const hook = { kind: 'exec' as const, command: ['hook'] as [string], timeoutMs: 1_000 };
const sigterm = { type: 'signal', signal: 'SIGTERM' } as const;
const ofType = (effects: readonly Effect[], type: Effect['type']) => effects.filter((effect) => effect.type === type);

describe('teardown, rule by rule', () => {
  it('cancels the readiness deadline of a sidecar not yet started, and stops only the watches of what is alive', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true }), proc('late', 'sidecar', { probe: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'));
    const effects = d.send(sigterm);
    expect(effects).toContainEqual({ type: 'cancel-timer', timer: { kind: 'deadline', name: 'proxy' } });
    expect(effects).toContainEqual({ type: 'stop-watch', name: 'proxy', watch: 'readiness' });
    // late was still pending: nothing of it runs, so nothing of it is stopped.
    expect(effects.filter((effect) => 'name' in effect && effect.name === 'late')).toEqual([]);
  });

  it('cancels a postStart still running, and only that', () => {
    const running = createDriver(plan([proc('proxy', 'sidecar', { postStart: hook }), proc('app', 'app')]));
    running.send({ type: 'boot' }, running.spawned('proxy'));
    expect(running.send(sigterm)).toContainEqual({ type: 'cancel-hook', name: 'proxy', hook: 'postStart' });
    const done = createDriver(plan([proc('proxy', 'sidecar', { postStart: hook }), proc('app', 'app')]));
    done.send(
      { type: 'boot' },
      done.spawned('proxy'),
      { type: 'hook-done', name: 'proxy', hook: 'postStart', ok: true },
      done.spawned('app'),
    );
    expect(ofType(done.send(sigterm), 'cancel-hook')).toEqual([]);
  });

  it('drains only when a stop signal began teardown, not when the app exited', () => {
    const drain = { kind: 'delay' as const, ms: 500 };
    const onSignal = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')], { drain }));
    onSignal.send({ type: 'boot' }, onSignal.spawned('proxy'), onSignal.spawned('app'));
    expect(onSignal.send(sigterm)).toContainEqual({ type: 'run-drain' });
    const onExit = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')], { drain }));
    onExit.send({ type: 'boot' }, onExit.spawned('proxy'), onExit.spawned('app'));
    expect(ofType(onExit.send(onExit.exited('app', exited(0))), 'run-drain')).toEqual([]);
  });

  it('cancels the drain when the budget runs out during it; a drain-done after that starts nothing', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { preStop: hook }), proc('app', 'app')], { drain: { kind: 'delay', ms: 500 } }));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'), sigterm);
    expect(d.send({ type: 'timer', timer: { kind: 'grace' } })).toContainEqual({ type: 'cancel-drain' });
    expect(ofType(d.send({ type: 'drain-done' }), 'run-hook')).toEqual([]);
  });

  it('a drain-done with no drain running changes nothing', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { preStop: hook }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'));
    expect(d.send({ type: 'drain-done' })).toEqual([]);
  });

  it('sends the app nothing when its stop signal is rewritten to none', () => {
    const d = createDriver(plan([proc('app', 'app')], { rewrite: { SIGTERM: null } }));
    d.send({ type: 'boot' }, d.spawned('app'));
    expect(ofType(d.send(sigterm), 'signal')).toEqual([]);
  });

  it("a process's grace that ends after it already exited kills nothing", () => {
    const d = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'));
    expect(d.send({ type: 'timer', timer: { kind: 'process-grace', name: 'proxy' } })).toEqual([]);
  });
});

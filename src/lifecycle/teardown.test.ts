import { describe, expect, it } from 'vitest';
import { createDriver } from '../../test/support/decide-driver.ts';
import { TEST_HOOK as hook, testExternal, testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import type { Effect } from './events.ts';

// Each rule of teardown.ts on its own: what the start of teardown cancels,
// when there is a drain, what a rewrite to none sends, what a timer that
// comes late may still do. decide.test.ts walks the common teardowns; these
// are the edges its assertions let through.

const exited = (code: number): ExitStatus => ({ kind: 'exited', code });
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
    // late, with a postStart of its own, waits for proxy's probe: never spawned, it has no hook to cancel.
    const pending = createDriver(
      plan([proc('proxy', 'sidecar', { probe: true }), proc('late', 'sidecar', { postStart: hook }), proc('app', 'app')]),
    );
    pending.send({ type: 'boot' }, pending.spawned('proxy'));
    expect(ofType(pending.send(sigterm), 'cancel-hook')).toEqual([]);
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

  it('cancels the drain once: the kill that follows the budget has none left to cancel', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')], { drain: { kind: 'delay', ms: 500 } }));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'), sigterm);
    expect(ofType(d.send({ type: 'timer', timer: { kind: 'grace' } }), 'cancel-drain')).toEqual([{ type: 'cancel-drain' }]);
    expect(ofType(d.send({ type: 'timer', timer: { kind: 'kill' } }), 'cancel-drain')).toEqual([]);
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

  it('an external left alone in its turn is down at once, and what it waited for is stopped in the same step', () => {
    // mesh comes after proxy (the default chain) and stop: none leaves it to its own container.
    const d = createDriver(plan([proc('proxy', 'sidecar'), testExternal('mesh', { stop: { kind: 'none' } }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), { type: 'readiness', name: 'mesh', ready: true }, d.spawned('app'));
    expect(ofType(d.send(d.exited('app', exited(0))), 'signal')).toEqual([
      { type: 'signal', name: 'proxy', signal: 'SIGTERM', purpose: 'stop' },
    ]);
    expect(d.lines).toContainEqual({ kind: 'external-skipped', name: 'mesh', why: 'stop-none' });
  });

  it('says the grace ran out only once: not when its timer fires after a second stop signal already ended it', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'), sigterm, sigterm);
    d.send({ type: 'timer', timer: { kind: 'grace' } });
    expect(d.lines).toEqual([]);
    // After one stop signal the same timer does say it, so the empty list above is the rule's doing.
    const once = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    once.send({ type: 'boot' }, once.spawned('proxy'), once.spawned('app'), sigterm);
    once.send({ type: 'timer', timer: { kind: 'grace' } });
    expect(once.lines).toContainEqual({ kind: 'grace-expired' });
  });

  it('a run confirmed after the budget ran out is killed once, and counts as stopping from then on', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'), d.exited('proxy', exited(1)));
    d.send({ type: 'timer', timer: { kind: 'restart', name: 'proxy' } }, d.swept('proxy'));
    expect(d.state.procs.get('proxy')).toMatchObject({ status: 'spawning' });
    // The app ignores its SIGTERM; the budget runs out while proxy's spawn is under way.
    d.send(sigterm, { type: 'timer', timer: { kind: 'grace' } });
    expect(ofType(d.send(d.spawned('proxy')), 'signal')).toEqual([{ type: 'signal', name: 'proxy', signal: 'SIGKILL', purpose: 'kill' }]);
    expect(d.state.procs.get('proxy')).toMatchObject({ status: 'stopping' });
    expect(ofType(d.send(d.exited('app', exited(0))), 'signal')).toEqual([]);
  });

  it('finishes with no restart left behind: one kept during the drain is cancelled once everything is down', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')], { drain: { kind: 'delay', ms: 500 } }));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'), sigterm, d.exited('proxy', exited(1)));
    expect(d.state.procs.get('proxy')).toMatchObject({ status: 'backoff' });
    expect(d.send(d.exited('app', exited(0)))).toEqual([
      { type: 'cancel-timer', timer: { kind: 'restart', name: 'proxy' } },
      { type: 'finish', exitCode: 0 },
    ]);
    expect(d.state.procs.get('proxy')).toMatchObject({ status: 'exited' });
  });

  it("a process's grace that ends after it already exited kills nothing", () => {
    const d = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'));
    expect(d.send({ type: 'timer', timer: { kind: 'process-grace', name: 'proxy' } })).toEqual([]);
  });
});

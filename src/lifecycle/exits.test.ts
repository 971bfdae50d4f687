import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../plan/plan.ts';
import { createDriver } from '../../test/support/decide-driver.ts';
import { TEST_HOOK as hook, TEST_LIVENESS, TEST_ON_FAILURE, testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import type { LifecycleEventBody } from './events.ts';

// Each rule of exits.ts on its own: which exit is news, what an exit cancels,
// what a sidecar that never got ready is said to have done, and how a run's
// length and an unhealthy kill count for its restart. decide.test.ts walks
// the common paths; these are the edges its assertions let through.

const exited = (code: number): ExitStatus => ({ kind: 'exited', code });
const signaled = (signal: NodeJS.Signals): ExitStatus => ({ kind: 'signaled', signal });
const ready = (name: string): LifecycleEventBody => ({ type: 'readiness', name, ready: true });
const restartLines = (lines: readonly { kind: string }[]) => lines.filter((line) => line.kind === 'restart-scheduled');

describe('exits, rule by rule', () => {
  it('a second exit of the same run is no news: nothing decided, nothing changed', () => {
    const d = createDriver(plan([proc('s', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'), d.exited('s', exited(1)));
    const before = d.state.procs.get('s');
    expect(d.send(d.exited('s', exited(1)))).toEqual([]);
    expect(d.state.procs.get('s')).toEqual(before);
  });

  it('an exit cancels a postStart still running, and only that', () => {
    const running = createDriver(plan([proc('s', 'sidecar', { postStart: hook }), proc('app', 'app')]));
    running.send({ type: 'boot' }, running.spawned('s'));
    expect(running.send(running.exited('s', exited(1)))).toContainEqual({ type: 'cancel-hook', name: 's', hook: 'postStart' });

    // Its postStart done, then stopped on request: the exit of a stopping run has no postStart to cancel.
    const done = createDriver(plan([proc('s', 'sidecar', { postStart: hook }), proc('app', 'app')]));
    done.send({ type: 'boot' }, done.spawned('s'), { type: 'hook-done', name: 's', hook: 'postStart', ok: true }, done.spawned('app'));
    done.send({ type: 'control', id: 1, command: { kind: 'stop', name: 's' }, uid: 0 });
    expect(done.send(done.exited('s', signaled('SIGTERM'))).filter((effect) => effect.type === 'cancel-hook')).toEqual([]);

    // Without a postStart there is nothing to cancel.
    const none = createDriver(plan([proc('s', 'sidecar'), proc('app', 'app')]));
    none.send({ type: 'boot' }, none.spawned('s'));
    expect(none.send(none.exited('s', exited(1))).filter((effect) => effect.type === 'cancel-hook')).toEqual([]);
  });

  it('a sidecar that ends before it is ready fails the start, said as what happened to it', () => {
    const never = { ...proc('x', 'init').restart };
    const crashed = createDriver(plan([proc('proxy', 'sidecar', { probe: true, restart: never }), proc('app', 'app')]));
    crashed.send({ type: 'boot' }, crashed.spawned('proxy'), crashed.exited('proxy', exited(1)));
    expect(crashed.lines).toContainEqual({
      kind: 'teardown',
      reason: { kind: 'sidecar-failed', name: 'proxy', status: exited(1), reason: 'exited before it was ready' },
      appRunning: false,
    });
    const missing = createDriver(plan([proc('proxy', 'sidecar', { probe: true, restart: never }), proc('app', 'app')]));
    const notFound: ExitStatus = { kind: 'spawn-failed', code: 127, reason: 'proxy-bin: not found' };
    missing.send({ type: 'boot' }, missing.exited('proxy', notFound));
    expect(missing.lines).toContainEqual({
      kind: 'teardown',
      reason: { kind: 'sidecar-failed', name: 'proxy', status: notFound, reason: 'proxy-bin: not found' },
      appRunning: false,
    });
  });

  it('a run that lasted past resetAfter starts the restart count again; short runs keep counting', () => {
    const d = createDriver(plan([proc('s', 'sidecar'), proc('app', 'app')]));
    // Not at time 0: a run's length is the time since its spawn, not the time itself.
    d.advance(10 * DEFAULTS.backoff.resetAfterMs);
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'));
    const crashAndComeBack = () => {
      d.send(d.exited('s', exited(1)));
      const attempt = (restartLines(d.lines)[0] as { attempt: number } | undefined)?.attempt;
      d.send({ type: 'timer', timer: { kind: 'restart', name: 's' } }, d.swept('s'), d.spawned('s'));
      return attempt;
    };
    expect(crashAndComeBack()).toBe(1);
    d.advance(10);
    expect(crashAndComeBack()).toBe(2);
    d.advance(DEFAULTS.backoff.resetAfterMs + 1);
    expect(crashAndComeBack()).toBe(1);
  });

  it('an on-failure sidecar that exits 0 by itself stays down; killed as unhealthy, it comes back', () => {
    const d = createDriver(plan([proc('s', 'sidecar', { restart: TEST_ON_FAILURE }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'), d.exited('s', exited(0)));
    expect(restartLines(d.lines)).toEqual([]);
    expect(d.state.procs.get('s')).toMatchObject({ status: 'exited' });

    const sick = createDriver(
      plan([proc('s', 'sidecar', { probe: true, liveness: TEST_LIVENESS, restart: TEST_ON_FAILURE }), proc('app', 'app')]),
    );
    sick.send({ type: 'boot' }, sick.spawned('s'), ready('s'), sick.spawned('app'));
    sick.send({ type: 'liveness-failed', name: 's', reason: 'probe failed' }, sick.exited('s', exited(0)));
    expect(restartLines(sick.lines)).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { createDriver } from '../../test/support/decide-driver.ts';
import { TEST_HOOK as hook, testExternal, testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import type { ControlCommand, Effect, LifecycleEventBody } from './events.ts';

// Each rule of control.ts on its own: what a request is refused with, in which
// state, and what an accepted one leaves behind. decide.test.ts has the
// requests' common paths; these are the cases its assertions let through.

const exited = (code: number): ExitStatus => ({ kind: 'exited', code });
const signaled = (signal: NodeJS.Signals): ExitStatus => ({ kind: 'signaled', signal });
const ready = (name: string): LifecycleEventBody => ({ type: 'readiness', name, ready: true });
const control = (id: number, command: ControlCommand): LifecycleEventBody => ({ type: 'control', id, command, uid: 0 });
const replyOf = (effects: readonly Effect[]) => effects.find((effect) => effect.type === 'control-reply');

/** A driver with the app and one sidecar `s` running; `s` may have hooks. */
function running(sidecar: Parameters<typeof proc>[2] = {}) {
  const d = createDriver(plan([proc('s', 'sidecar', sidecar), proc('app', 'app')]));
  d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'));
  return d;
}

describe('control requests, rule by rule', () => {
  it('refuses every request for an external, naming what it is, whatever its state', () => {
    const d = createDriver(plan([testExternal('mesh'), proc('app', 'app')]));
    d.send({ type: 'boot' });
    const refusal = 'mesh is an external, a process of another container: sidecar-init never starts or signals it on request';
    for (const command of [
      { kind: 'signal', name: 'mesh', signal: 'SIGHUP' },
      { kind: 'stop', name: 'mesh' },
      { kind: 'restart', name: 'mesh' },
      { kind: 'start', name: 'mesh' },
    ] as const) {
      const effects = d.send(control(1, command));
      expect(effects).toEqual([{ type: 'control-reply', id: 1, ok: false, message: refusal }]);
    }
  });

  it('refuses to start the app in its own words', () => {
    const d = running();
    expect(replyOf(d.send(control(1, { kind: 'start', name: 'app' })))).toEqual({
      type: 'control-reply',
      id: 1,
      ok: false,
      message: 'the app cannot be started on request: its exit ends the pod; send sidecar-init SIGTERM to stop everything',
    });
  });

  it('refuses a second stop or restart while the first is under way, and sends nothing for it', () => {
    const d = running();
    d.send(control(1, { kind: 'stop', name: 's' }));
    for (const kind of ['stop', 'restart'] as const)
      expect(d.send(control(2, { kind, name: 's' }))).toEqual([
        { type: 'control-reply', id: 2, ok: false, message: 's is already being stopped on request' },
      ]);
  });

  it('signals a sidecar that is being stopped on request: it is still running', () => {
    const d = running({ preStop: hook });
    d.send(control(1, { kind: 'stop', name: 's' }));
    expect(d.send(control(2, { kind: 'signal', name: 's', signal: 'SIGUSR1' }))).toEqual([
      { type: 'signal', name: 's', signal: 'SIGUSR1', purpose: 'control' },
      { type: 'control-reply', id: 2, ok: true, message: 'sent SIGUSR1 to s' },
    ]);
  });

  it('says why a process cannot be signalled: exited on its own, waiting to restart, stopped on request', () => {
    const d = createDriver(
      plan([
        proc('gone', 'sidecar', { restart: { ...proc('x', 'init').restart } }),
        proc('flaky', 'sidecar'),
        proc('held', 'sidecar'),
        proc('app', 'app'),
      ]),
    );
    d.send({ type: 'boot' }, d.spawned('gone'), d.spawned('flaky'), d.spawned('held'), d.spawned('app'));
    d.send(d.exited('gone', exited(0)), d.exited('flaky', exited(1)));
    d.send(control(1, { kind: 'stop', name: 'held' }), d.exited('held', signaled('SIGTERM')));
    const refusal = (name: string) =>
      (replyOf(d.send(control(2, { kind: 'signal', name, signal: 'SIGHUP' }))) as { message: string }).message;
    expect(refusal('gone')).toBe('gone is not running (exited)');
    expect(refusal('flaky')).toBe('flaky is not running (waiting to restart)');
    expect(refusal('held')).toBe('held is not running (stopped on request)');
  });

  it('cancels a postStart still running when its sidecar is stopped on request, and only then', () => {
    const pending = createDriver(plan([proc('s', 'sidecar', { postStart: hook }), proc('app', 'app')]));
    pending.send({ type: 'boot' }, pending.spawned('s'));
    expect(pending.send(control(1, { kind: 'stop', name: 's' }))).toEqual([
      { type: 'cancel-hook', name: 's', hook: 'postStart' },
      { type: 'signal', name: 's', signal: 'SIGTERM', purpose: 'control-stop' },
      { type: 'start-timer', timer: { kind: 'process-grace', name: 's' }, ms: expect.any(Number) },
      { type: 'control-reply', id: 1, ok: true, message: 'stopping s; it stays down until started' },
    ]);
    const done = createDriver(plan([proc('s', 'sidecar', { postStart: hook }), proc('app', 'app')]));
    done.send({ type: 'boot' }, done.spawned('s'), { type: 'hook-done', name: 's', hook: 'postStart', ok: true }, done.spawned('app'));
    expect(done.send(control(1, { kind: 'stop', name: 's' })).map((effect) => effect.type)).toEqual([
      'signal',
      'start-timer',
      'control-reply',
    ]);
  });

  it("a teardown's preStop ending sends that stop, not a control stop", () => {
    const d = running({ preStop: hook });
    d.send({ type: 'signal', signal: 'SIGTERM' }, d.exited('app', signaled('SIGTERM')));
    expect(d.send({ type: 'hook-done', name: 's', hook: 'preStop', ok: true })).toEqual([
      { type: 'signal', name: 's', signal: 'SIGTERM', purpose: 'stop' },
    ]);
  });

  it('a preStop begun on request is cancelled, as every running preStop, when the grace runs out', () => {
    const d = running({ preStop: hook });
    d.send(control(1, { kind: 'restart', name: 's' }), { type: 'signal', signal: 'SIGTERM' });
    expect(d.send({ type: 'timer', timer: { kind: 'grace' } })).toContainEqual({ type: 'cancel-hook', name: 's', hook: 'preStop' });
  });

  it('a sidecar started on request spawns only once its old process group is swept, whatever else happens first', () => {
    const d = running();
    d.send(control(1, { kind: 'stop', name: 's' }), d.exited('s', signaled('SIGTERM')));
    d.send(control(2, { kind: 'start', name: 's' }));
    expect(d.send({ type: 'signal', signal: 'SIGHUP', forwarded: true }, ready('app'))).not.toContainEqual({ type: 'spawn', name: 's' });
    expect(d.send(d.swept('s'))).toEqual([{ type: 'spawn', name: 's' }]);
  });

  it('restarts on request without the backoff its own policy would give a crash: no restart scheduled, no timer', () => {
    // The default policy restarts a crashed sidecar after a backoff; a restart on request skips it.
    const d = running();
    d.send(control(1, { kind: 'restart', name: 's' }));
    expect(d.send(d.exited('s', signaled('SIGTERM')))).toEqual([
      { type: 'cancel-timer', timer: { kind: 'process-grace', name: 's' } },
      { type: 'sweep-group', name: 's', graceMs: expect.any(Number) },
    ]);
    expect(d.send(d.swept('s'))).toEqual([{ type: 'spawn', name: 's' }]);
  });

  it('names the processes it can act on, not the externals, when a name is unknown', () => {
    const d = createDriver(plan([testExternal('mesh'), proc('s', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' });
    expect(replyOf(d.send(control(1, { kind: 'stop', name: 'nope' })))).toMatchObject({
      ok: false,
      message: 'no process is named "nope"; the processes are s, app',
    });
  });
});

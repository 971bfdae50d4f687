import { describe, expect, it } from 'vitest';
import type { ExitStatus } from '../plan/exit-status.ts';
import { forwardRoute, isHurried, KILL_AFTER_GRACE_MS } from './decide.ts';
import { createDriver } from '../../test/support/decide-driver.ts';
import type { DecideContext } from './draft.ts';
import type { ControlCommand, Effect, LifecycleEventBody, LifecycleLine } from './events.ts';
import { EXIT_FATAL_SIDECAR } from './exit-code.ts';
import { createProcessGraph } from '../plan/process-graph.ts';
import { LEFTOVER_GRACE_MS } from './restart-policy.ts';
import type { ProcState } from './state.ts';
import { TEST_GRACE_MS as GRACE_MS, TEST_ON_FAILURE, testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';

const exited = (code: number): ExitStatus => ({ kind: 'exited', code });
const signaled = (signal: NodeJS.Signals): ExitStatus => ({ kind: 'signaled', signal });

const spawn = (name: string): Effect => ({ type: 'spawn', name });
const stop = (name: string, signal: NodeJS.Signals = 'SIGTERM'): Effect => ({ type: 'signal', name, signal, purpose: 'stop' });
const graceTimer: Effect = { type: 'start-timer', timer: { kind: 'grace' }, ms: GRACE_MS };
const ready = (name: string): LifecycleEventBody => ({ type: 'readiness', name, ready: true });
const finish = (exitCode: number): Effect => ({ type: 'finish', exitCode });
const restartScheduled = (name: string, attempt: number, delayMs: number): LifecycleLine => ({
  kind: 'restart-scheduled',
  name,
  attempt,
  delayMs,
});
const spawnsIn = (effects: readonly Effect[]) =>
  effects.filter((effect) => effect.type === 'spawn').map((effect) => (effect as { name: string }).name);
const signalsIn = (effects: readonly Effect[]) =>
  effects
    .filter((effect) => effect.type === 'signal')
    .map((effect) => {
      const signal = effect as { name: string; signal: string; purpose: string };
      return `${signal.name} ${signal.signal} ${signal.purpose}`;
    });

describe('startup order', () => {
  it('starts each entry only when the one before it is done or started, then the app', () => {
    const d = createDriver(
      plan([proc('net', 'init'), proc('proxy', 'sidecar', { probe: true }), proc('migrate', 'init'), proc('app', 'app')]),
    );
    expect(d.send({ type: 'boot' })).toEqual([spawn('net')]);
    expect(d.send(d.spawned('net'))).toEqual([]);
    expect(d.send(d.exited('net', exited(0)))).toEqual([spawn('proxy')]);
    expect(d.send(d.spawned('proxy'))).toEqual([
      { type: 'start-watch', name: 'proxy', watch: 'readiness' },
      { type: 'start-timer', timer: { kind: 'deadline', name: 'proxy' }, ms: 1_000 },
    ]);
    expect(d.send(ready('proxy'))).toEqual([{ type: 'cancel-timer', timer: { kind: 'deadline', name: 'proxy' } }, spawn('migrate')]);
    expect(spawnsIn(d.send(d.spawned('migrate'), d.exited('migrate', exited(0))))).toEqual(['app']);
    expect(d.state.phase).toBe('running');
  });

  it('counts a sidecar without a probe as started once it is spawned', () => {
    const d = createDriver(plan([proc('a', 'sidecar'), proc('b', 'sidecar'), proc('app', 'app')]));
    expect(d.send({ type: 'boot' }, d.spawned('a'))).toEqual([spawn('a'), spawn('b')]);
    expect(d.send(d.spawned('b'))).toEqual([spawn('app')]);
  });

  it('waits for a postStart hook before the next entry starts', () => {
    const hook = { kind: 'exec' as const, command: ['true'] as [string], timeoutMs: 1_000 };
    const d = createDriver(plan([proc('a', 'sidecar', { postStart: hook }), proc('app', 'app')]));
    d.send({ type: 'boot' });
    expect(d.send(d.spawned('a'))).toEqual([{ type: 'run-hook', name: 'a', hook: 'postStart' }]);
    expect(d.send({ type: 'hook-done', name: 'a', hook: 'postStart', ok: true })).toEqual([spawn('app')]);
  });

  it('with explicit dependencies starts independent entries together', () => {
    const d = createDriver(
      plan([
        proc('a', 'sidecar', { after: [] }),
        proc('b', 'sidecar', { after: [] }),
        proc('c', 'sidecar', { after: ['a'] }),
        proc('app', 'app'),
      ]),
    );
    expect(spawnsIn(d.send({ type: 'boot' }))).toEqual(['a', 'b']);
    expect(spawnsIn(d.send(d.spawned('a')))).toEqual(['c']);
    expect(spawnsIn(d.send(d.spawned('b'), d.spawned('c')))).toEqual(['app']);
  });
});

describe('restarts', () => {
  it('restarts a sidecar that crashes before it is ready and keeps the sequence waiting, with backoff', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'));
    expect(d.send(d.exited('proxy', exited(1)))).toEqual([
      { type: 'stop-watch', name: 'proxy', watch: 'readiness' },
      { type: 'start-timer', timer: { kind: 'restart', name: 'proxy' }, ms: 0 },
      { type: 'sweep-group', name: 'proxy', graceMs: LEFTOVER_GRACE_MS },
    ]);
    expect(d.lines).toEqual([{ kind: 'exited', name: 'proxy', status: exited(1) }, restartScheduled('proxy', 1, 0)]);
    expect(d.send(d.swept('proxy'), { type: 'timer', timer: { kind: 'restart', name: 'proxy' } })).toEqual([spawn('proxy')]);
    // The deadline runs from the first spawn: a restart does not start it again.
    expect(d.send(d.spawned('proxy'))).toEqual([{ type: 'start-watch', name: 'proxy', watch: 'readiness' }]);
    d.send(d.exited('proxy', exited(1)));
    expect(d.lines).toContainEqual(restartScheduled('proxy', 2, 1_000));
    d.send(d.swept('proxy'), { type: 'timer', timer: { kind: 'restart', name: 'proxy' } }, d.spawned('proxy'));
    expect(spawnsIn(d.send(ready('proxy')))).toEqual(['app']);
  });

  it('doubles the backoff up to the maximum and resets it after a long run', () => {
    const d = createDriver(
      plan([
        proc('s', 'sidecar', {
          restart: { policy: 'always', initialBackoffMs: 1_000, maxBackoffMs: 3_000, resetAfterMs: 10_000, maxRestarts: undefined },
        }),
        proc('app', 'app'),
      ]),
    );
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'));
    const delays: number[] = [];
    for (let crash = 0; crash < 4; crash += 1) {
      d.send(d.exited('s', exited(1)));
      delays.push(d.lines.flatMap((line) => (line.kind === 'restart-scheduled' ? [line.delayMs] : []))[0] ?? -1);
      d.send(d.swept('s'), { type: 'timer', timer: { kind: 'restart', name: 's' } }, d.spawned('s'));
    }
    expect(delays).toEqual([0, 1_000, 2_000, 3_000]);
    d.advance(10_000);
    d.send(d.exited('s', exited(1)));
    expect(d.lines).toContainEqual(restartScheduled('s', 1, 0));
  });

  it('never re-runs init steps or disturbs the app when a started sidecar restarts', () => {
    const d = createDriver(plan([proc('s', 'sidecar'), proc('step', 'init'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('step'), d.exited('step', exited(0)), d.spawned('app'));
    const effects = d.send(
      d.exited('s', exited(0)),
      d.swept('s'),
      { type: 'timer', timer: { kind: 'restart', name: 's' } },
      d.spawned('s'),
    );
    expect(spawnsIn(effects)).toEqual(['s']);
    expect(signalsIn(effects)).toEqual([]);
  });

  it('restarts only once the backoff is over and what the last run left in its process group is gone, whichever comes last', () => {
    const restart = {
      policy: 'always' as const,
      initialBackoffMs: 1_000,
      maxBackoffMs: 60_000,
      resetAfterMs: 600_000,
      maxRestarts: undefined,
    };
    const d = createDriver(plan([proc('s', 'sidecar', { restart, graceMs: 5_000 }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'));
    // The process's own grace bounds how long its leftovers get after SIGTERM.
    expect(d.send(d.exited('s', exited(1)))).toContainEqual({ type: 'sweep-group', name: 's', graceMs: 5_000 });
    expect(d.send({ type: 'timer', timer: { kind: 'restart', name: 's' } })).toEqual([]);
    expect(d.send(d.swept('s'))).toEqual([spawn('s')]);
    // The second crash waits 1 s: the group is gone first, the timer spawns.
    d.send(d.spawned('s'));
    d.send(d.exited('s', exited(1)));
    expect(d.send(d.swept('s'))).toEqual([]);
    expect(d.send({ type: 'timer', timer: { kind: 'restart', name: 's' } })).toEqual([spawn('s')]);
  });

  it('goes on with a restart under way when teardown begins, while the app it serves still runs', () => {
    const d = createDriver(plan([proc('s', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'), d.exited('s', exited(1)), {
      type: 'timer',
      timer: { kind: 'restart', name: 's' },
    });
    expect(d.send({ type: 'signal', signal: 'SIGTERM' })).toEqual([graceTimer, stop('app')]);
    expect(d.send(d.swept('s'))).toEqual([spawn('s')]);
    expect(d.send(d.spawned('s'))).toEqual([]);
    expect(signalsIn(d.send(d.exited('app', exited(0))))).toEqual(['s SIGTERM stop']);
  });

  it('restarts nothing once teardown has begun', () => {
    const d = createDriver(plan([proc('s', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'), d.exited('app', exited(0)));
    const effects = d.send(d.exited('s', exited(1)));
    expect(d.lines.some((line) => line.kind === 'restart-scheduled')).toBe(false);
    expect(effects).toContainEqual(finish(0));
  });

  it('cancels a pending restart when teardown begins', () => {
    const d = createDriver(plan([proc('s', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'), d.exited('s', exited(1)));
    expect(d.send(d.exited('app', exited(0)))).toEqual([
      graceTimer,
      { type: 'cancel-timer', timer: { kind: 'restart', name: 's' } },
      finish(0),
    ]);
  });

  it('retries an on-failure init step and fails it once maxRestarts is used up', () => {
    const restart = { policy: 'on-failure' as const, initialBackoffMs: 1_000, maxBackoffMs: 60_000, resetAfterMs: 600_000, maxRestarts: 1 };
    const d = createDriver(plan([proc('step', 'init', { restart }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('step'));
    d.send(d.exited('step', exited(3)));
    expect(d.lines).toContainEqual(restartScheduled('step', 1, 0));
    d.send(d.swept('step'), { type: 'timer', timer: { kind: 'restart', name: 'step' } }, d.spawned('step'));
    expect(d.send(d.exited('step', exited(4)))).toEqual([graceTimer, finish(4)]);
  });

  it('restarts an on-failure app in place while the sidecars keep running', () => {
    const restart = {
      policy: 'on-failure' as const,
      initialBackoffMs: 1_000,
      maxBackoffMs: 60_000,
      resetAfterMs: 600_000,
      maxRestarts: undefined,
    };
    const d = createDriver(plan([proc('s', 'sidecar'), proc('app', 'app', { restart })]));
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'));
    expect(signalsIn(d.send(d.exited('app', exited(1))))).toEqual([]);
    d.send(d.swept('app'), { type: 'timer', timer: { kind: 'restart', name: 'app' } }, d.spawned('app'));
    expect(d.send(d.exited('app', exited(0)))).toEqual([graceTimer, stop('s')]);
  });

  it('stops a process whose liveness fails and restarts it even when it then exits 0', () => {
    const liveness = {
      probe: { kind: 'tcp' as const, host: '127.0.0.1', port: 1 },
      periodMs: 1_000,
      timeoutMs: 1_000,
      failureThreshold: 3,
      initialDelayMs: 0,
    };
    const restart = {
      policy: 'on-failure' as const,
      initialBackoffMs: 1_000,
      maxBackoffMs: 60_000,
      resetAfterMs: 600_000,
      maxRestarts: undefined,
    };
    const d = createDriver(plan([proc('s', 'sidecar', { liveness, restart, graceMs: 5_000 }), proc('app', 'app')]));
    expect(d.send({ type: 'boot' }, d.spawned('s'))).toContainEqual({ type: 'start-watch', name: 's', watch: 'liveness' });
    d.send(d.spawned('app'));
    expect(d.send({ type: 'liveness-failed', name: 's', reason: 'refused' })).toEqual([
      { type: 'stop-watch', name: 's', watch: 'liveness' },
      { type: 'signal', name: 's', signal: 'SIGTERM', purpose: 'unhealthy' },
      { type: 'start-timer', timer: { kind: 'process-grace', name: 's' }, ms: 5_000 },
    ]);
    d.send(d.exited('s', exited(0)));
    expect(d.lines).toContainEqual(restartScheduled('s', 1, 0));
  });
});

describe('restarts during teardown', () => {
  const teardownRestart = (name: string, attempt: number, delayMs: number): LifecycleLine => ({
    kind: 'restart-scheduled',
    name,
    attempt,
    delayMs,
    duringTeardown: true,
  });
  const appGraceOver: Effect = { type: 'cancel-timer', timer: { kind: 'process-grace', name: 'app' } };
  const restartTimer = (name: string): LifecycleEventBody => ({ type: 'timer', timer: { kind: 'restart', name } });
  const chain = (overrides: Parameters<typeof proc>[2] = {}) =>
    createDriver(plan([proc('a', 'sidecar'), proc('proxy', 'sidecar', overrides), proc('app', 'app')]));
  const draining = (overrides: Parameters<typeof proc>[2] = {}) => {
    const d = chain(overrides);
    d.send({ type: 'boot' }, d.spawned('a'), d.spawned('proxy'), d.spawned('app'), { type: 'signal', signal: 'SIGTERM' });
    return d;
  };

  it('restarts a sidecar that exits while the app drains, says why, and stops it in its turn like any other', () => {
    const d = draining();
    expect(d.send(d.exited('proxy', exited(1)))).toEqual([
      { type: 'start-timer', timer: { kind: 'restart', name: 'proxy' }, ms: 0 },
      { type: 'sweep-group', name: 'proxy', graceMs: LEFTOVER_GRACE_MS },
    ]);
    expect(d.lines).toEqual([{ kind: 'exited', name: 'proxy', status: exited(1) }, teardownRestart('proxy', 1, 0)]);
    expect(d.send(d.swept('proxy'), restartTimer('proxy'))).toEqual([spawn('proxy')]);
    // Up again during teardown: nothing to gate, and not its turn yet.
    expect(d.send(d.spawned('proxy'))).toEqual([]);
    expect(d.send(d.exited('app', exited(0)))).toEqual([appGraceOver, stop('proxy')]);
    expect(signalsIn(d.send(d.exited('proxy', exited(0))))).toEqual(['a SIGTERM stop']);
    expect(d.send(d.exited('a', exited(0)))).toContainEqual(finish(0));
  });

  it('cancels a restart still in backoff when its turn comes, and the stops go on in reverse order', () => {
    const d = draining();
    d.send(d.exited('proxy', exited(1)), d.swept('proxy'), restartTimer('proxy'), d.spawned('proxy'));
    // The second crash waits out a backoff; the app exits before it is over.
    d.send(d.exited('proxy', exited(1)));
    expect(d.lines).toContainEqual(teardownRestart('proxy', 2, 1_000));
    expect(d.send(d.exited('app', exited(0)))).toEqual([
      appGraceOver,
      stop('a'),
      { type: 'cancel-timer', timer: { kind: 'restart', name: 'proxy' } },
    ]);
    expect(d.send(d.swept('proxy'), restartTimer('proxy'))).toEqual([]);
    expect(d.send(d.exited('a', exited(0)))).toContainEqual(finish(0));
  });

  it('counts maxRestarts as usual, and follows the restart policy', () => {
    const restart = { policy: 'on-failure' as const, initialBackoffMs: 1_000, maxBackoffMs: 60_000, resetAfterMs: 600_000, maxRestarts: 1 };
    const d = draining({ restart });
    d.send(d.exited('proxy', exited(1)), d.swept('proxy'), restartTimer('proxy'), d.spawned('proxy'));
    expect(d.send(d.exited('proxy', exited(1)))).toEqual([]);
    expect(d.lines.some((line) => line.kind === 'restart-scheduled')).toBe(false);
    const clean = draining({ restart: { ...restart, maxRestarts: undefined } });
    expect(clean.send(clean.exited('proxy', exited(0)))).toEqual([]);
    expect(signalsIn(clean.send(clean.exited('app', exited(0))))).toEqual(['a SIGTERM stop']);
  });

  it('never restarts what was already asked to stop, the app, or an init step', () => {
    const d = draining();
    d.send(d.exited('app', exited(0)));
    // proxy had its stop signal: its exit, with any code, only lets the teardown go on.
    expect(signalsIn(d.send(d.exited('proxy', exited(1))))).toEqual(['a SIGTERM stop']);
    expect(d.lines.some((line) => line.kind === 'restart-scheduled')).toBe(false);
    const app = createDriver(plan([proc('a', 'sidecar'), proc('app', 'app', { restart: TEST_ON_FAILURE })]));
    app.send({ type: 'boot' }, app.spawned('a'), app.spawned('app'), { type: 'signal', signal: 'SIGTERM' });
    expect(signalsIn(app.send(app.exited('app', exited(1))))).toEqual(['a SIGTERM stop']);
    expect(app.lines.some((line) => line.kind === 'restart-scheduled')).toBe(false);
    const step = createDriver(plan([proc('a', 'sidecar'), proc('step', 'init', { restart: TEST_ON_FAILURE }), proc('app', 'app')]));
    step.send({ type: 'boot' }, step.spawned('a'), step.spawned('step'), { type: 'signal', signal: 'SIGTERM' });
    expect(signalsIn(step.send(step.exited('step', exited(1))))).toEqual(['a SIGTERM stop']);
    expect(step.lines.some((line) => line.kind === 'restart-scheduled')).toBe(false);
  });

  it('a second stop signal or the end of the budget cancels every restart and ends everything at once', () => {
    const d = draining();
    d.send(d.exited('proxy', exited(1)), d.swept('proxy'), restartTimer('proxy'), d.spawned('proxy'), d.exited('proxy', exited(1)));
    expect(d.send({ type: 'signal', signal: 'SIGTERM' })).toEqual([
      { type: 'cancel-timer', timer: { kind: 'restart', name: 'proxy' } },
      { type: 'signal', name: 'a', signal: 'SIGKILL', purpose: 'kill' },
      { type: 'signal', name: 'app', signal: 'SIGKILL', purpose: 'kill' },
    ]);
    const late = draining();
    late.send(late.exited('proxy', exited(1)));
    expect(late.send({ type: 'timer', timer: { kind: 'grace' } })).toEqual([
      { type: 'cancel-timer', timer: { kind: 'restart', name: 'proxy' } },
      { type: 'signal', name: 'a', signal: 'SIGTERM', purpose: 'expire' },
      { type: 'signal', name: 'app', signal: 'SIGTERM', purpose: 'expire' },
      { type: 'start-timer', timer: { kind: 'kill' }, ms: KILL_AFTER_GRACE_MS },
    ]);
    expect(late.send(late.swept('proxy'), restartTimer('proxy'))).toEqual([]);
  });

  it('with a preStop: restarted only during the drain, which its preStop follows; one whose stop began while it was down stays down', () => {
    const hook = { kind: 'exec' as const, command: ['true'] as [string], timeoutMs: 1_000 };
    const withDrain = (drainMs: number | undefined) => {
      const d = createDriver(
        plan([proc('a', 'sidecar'), proc('proxy', 'sidecar', { preStop: hook }), proc('app', 'app')], {
          drain: drainMs === undefined ? undefined : { kind: 'delay', ms: drainMs },
        }),
      );
      d.send({ type: 'boot' }, d.spawned('a'), d.spawned('proxy'), d.spawned('app'));
      return d;
    };
    // During the drain: restarted; still starting when the drain ends, its preStop runs once it is up.
    const d = withDrain(500);
    expect(d.send({ type: 'signal', signal: 'SIGTERM' })).toEqual([graceTimer, { type: 'run-drain' }]);
    expect(d.send(d.exited('proxy', exited(1)), d.swept('proxy'), restartTimer('proxy'))).toContainEqual(spawn('proxy'));
    expect(d.lines).toContainEqual(teardownRestart('proxy', 1, 0));
    expect(d.send({ type: 'drain-done' })).toEqual([stop('app')]);
    expect(d.send(d.spawned('proxy'))).toEqual([{ type: 'run-hook', name: 'proxy', hook: 'preStop' }]);
    // Its preStop was the start of its stop: a crash now keeps it down.
    expect(d.send(d.exited('proxy', exited(1)))).toEqual([]);
    expect(d.lines.some((line) => line.kind === 'restart-scheduled')).toBe(false);
    // Waiting to restart when the drain ends: its stop begins while it is down.
    const down = withDrain(500);
    down.send({ type: 'signal', signal: 'SIGTERM' }, down.exited('proxy', exited(1)));
    expect(down.send({ type: 'drain-done' })).toEqual([{ type: 'cancel-timer', timer: { kind: 'restart', name: 'proxy' } }, stop('app')]);
    // Without a drain its preStop starts with teardown: not restarted at all.
    const noDrain = withDrain(undefined);
    expect(noDrain.send({ type: 'signal', signal: 'SIGTERM' })).toContainEqual({ type: 'run-hook', name: 'proxy', hook: 'preStop' });
    noDrain.send(noDrain.exited('proxy', exited(1)));
    expect(noDrain.lines.some((line) => line.kind === 'restart-scheduled')).toBe(false);
  });

  it('with explicit dependencies: restarted only while something that waits for it is alive', () => {
    const d = createDriver(
      plan([proc('db', 'sidecar', { after: [] }), proc('metrics', 'sidecar', { after: [] }), proc('app', 'app', { after: ['db'] })]),
    );
    d.send({ type: 'boot' }, d.spawned('db'), d.spawned('metrics'), d.spawned('app'));
    // metrics serves nobody: its turn comes at once; db waits for the app.
    expect(signalsIn(d.send({ type: 'signal', signal: 'SIGTERM' }))).toEqual(['metrics SIGTERM stop', 'app SIGTERM stop']);
    d.send(d.exited('db', exited(1)));
    expect(d.lines).toContainEqual(teardownRestart('db', 1, 0));
  });
});

describe('fatal sidecars', () => {
  it('ends the pod when a fatal sidecar exits: the app is stopped and the exit code is 69', () => {
    const d = createDriver(plan([proc('a', 'sidecar'), proc('db', 'sidecar', { fatal: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('a'), d.spawned('db'), d.spawned('app'));
    expect(signalsIn(d.send(d.exited('db', exited(1))))).toEqual(['app SIGTERM stop']);
    expect(signalsIn(d.send(d.exited('app', exited(0))))).toEqual(['a SIGTERM stop']);
    expect(d.send(d.exited('a', exited(0)))).toContainEqual(finish(EXIT_FATAL_SIDECAR));
  });

  it('restarts a fatal sidecar with maxRestarts until they are used up', () => {
    const restart = { policy: 'always' as const, initialBackoffMs: 1_000, maxBackoffMs: 60_000, resetAfterMs: 600_000, maxRestarts: 1 };
    const d = createDriver(plan([proc('db', 'sidecar', { fatal: true, restart }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('db'), d.spawned('app'));
    d.send(d.exited('db', exited(1)));
    expect(d.lines).toContainEqual(restartScheduled('db', 1, 0));
    d.send(d.swept('db'), { type: 'timer', timer: { kind: 'restart', name: 'db' } }, d.spawned('db'));
    expect(signalsIn(d.send(d.exited('db', exited(1))))).toEqual(['app SIGTERM stop']);
  });
});

describe('teardown when the app exits', () => {
  it('stops sidecars in reverse start order, one at a time, and exits with the app code', () => {
    const d = createDriver(plan([proc('a', 'sidecar'), proc('b', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('a'), d.spawned('b'), d.spawned('app'));
    expect(d.send(d.exited('app', exited(3)))).toEqual([graceTimer, stop('b')]);
    expect(signalsIn(d.send(d.exited('b', signaled('SIGTERM'))))).toEqual(['a SIGTERM stop']);
    expect(d.send(d.exited('a', exited(1)))).toContainEqual(finish(3));
  });

  it('with explicit dependencies stops a process only after everything that depends on it', () => {
    const d = createDriver(
      plan([
        proc('a', 'sidecar', { after: [] }),
        proc('b', 'sidecar', { after: [] }),
        proc('c', 'sidecar', { after: ['a'] }),
        proc('app', 'app'),
      ]),
    );
    d.send({ type: 'boot' }, d.spawned('a'), d.spawned('b'), d.spawned('c'), d.spawned('app'));
    expect(signalsIn(d.send(d.exited('app', exited(0))))).toEqual(['b SIGTERM stop', 'c SIGTERM stop']);
    expect(signalsIn(d.send(d.exited('c', exited(0))))).toEqual(['a SIGTERM stop']);
  });

  it('maps the app code through successCodes', () => {
    const d = createDriver(plan([proc('app', 'app', { successCodes: [143] })]));
    d.send({ type: 'boot' }, d.spawned('app'));
    expect(d.send(d.exited('app', signaled('SIGTERM')))).toContainEqual(finish(0));
  });

  it('reports 128+N when a signal killed the app', () => {
    const d = createDriver(plan([proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('app'));
    expect(d.send(d.exited('app', signaled('SIGKILL')))).toContainEqual(finish(137));
  });

  it('uses a sidecar stopSignal and its own grace cap', () => {
    const d = createDriver(plan([proc('nginx', 'sidecar', { stopSignal: 'SIGQUIT', graceMs: 3_000 }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('nginx'), d.spawned('app'));
    expect(d.send(d.exited('app', exited(0)))).toEqual([
      graceTimer,
      stop('nginx', 'SIGQUIT'),
      { type: 'start-timer', timer: { kind: 'process-grace', name: 'nginx' }, ms: 3_000 },
    ]);
    expect(d.send({ type: 'timer', timer: { kind: 'process-grace', name: 'nginx' } })).toEqual([
      { type: 'signal', name: 'nginx', signal: 'SIGKILL', purpose: 'kill' },
    ]);
  });
});

describe('startup failures', () => {
  it('an init step failing stops started sidecars in reverse order and exits with its code', () => {
    const d = createDriver(plan([proc('a', 'sidecar'), proc('b', 'sidecar'), proc('step', 'init'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('a'), d.spawned('b'), d.spawned('step'));
    expect(d.send(d.exited('step', exited(4)))).toEqual([graceTimer, stop('b')]);
    expect(d.state.procs.get('app')?.status).toBe('skipped');
    expect(signalsIn(d.send(d.exited('b', exited(0))))).toEqual(['a SIGTERM stop']);
    expect(d.send(d.exited('a', exited(0)))).toContainEqual(finish(4));
  });

  it('a sidecar that misses its readiness deadline, across restarts, fails startup with exit 1', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'));
    expect(signalsIn(d.send({ type: 'timer', timer: { kind: 'deadline', name: 'proxy' } }))).toEqual(['proxy SIGTERM stop']);
    expect(d.send(d.exited('proxy', signaled('SIGTERM')))).toContainEqual(finish(1));
  });

  it('a readiness deadline that passes during restart backoff fails startup at once, with its reason', () => {
    const restart = {
      policy: 'always' as const,
      initialBackoffMs: 60_000,
      maxBackoffMs: 60_000,
      resetAfterMs: 600_000,
      maxRestarts: undefined,
    };
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true, restart }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.exited('proxy', exited(1)), d.swept('proxy'), {
      type: 'timer',
      timer: { kind: 'restart', name: 'proxy' },
    });
    d.send(d.spawned('proxy'), d.exited('proxy', exited(1)));
    expect(d.lines).toContainEqual(restartScheduled('proxy', 2, 60_000));
    expect(d.state.procs.get('proxy')?.status).toBe('backoff');
    const effects = d.send({ type: 'timer', timer: { kind: 'deadline', name: 'proxy' } });
    expect(effects).toContainEqual({ type: 'cancel-timer', timer: { kind: 'restart', name: 'proxy' } });
    expect(effects).toContainEqual(finish(1));
    expect(d.state.stopReason).toMatchObject({ kind: 'sidecar-failed', name: 'proxy', reason: 'not ready within its 1000ms deadline' });
  });

  it('a sidecar that exits before it is ready and is not restarted fails startup with its own code', () => {
    const restart = {
      policy: 'never' as const,
      initialBackoffMs: 1_000,
      maxBackoffMs: 60_000,
      resetAfterMs: 600_000,
      maxRestarts: undefined,
    };
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true, restart }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'));
    expect(d.send(d.exited('proxy', exited(9)))).toContainEqual(finish(9));
  });

  it('a sidecar program that does not exist fails startup with 127 and is not retried', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' });
    const effects = d.send(d.exited('proxy', { kind: 'spawn-failed', code: 127, reason: 'not found' }));
    expect(effects).toContainEqual(finish(127));
    expect(spawnsIn(effects)).toEqual([]);
  });
});

describe('termination by signal', () => {
  it('passes SIGINT to the app first and keeps sidecars up until the app has exited', () => {
    const d = createDriver(plan([proc('a', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('a'), d.spawned('app'));
    expect(d.send({ type: 'signal', signal: 'SIGINT' })).toEqual([graceTimer, stop('app', 'SIGINT')]);
    expect(signalsIn(d.send(d.exited('app', exited(0))))).toEqual(['a SIGTERM stop']);
    expect(d.send(d.exited('a', exited(0)))).toContainEqual(finish(0));
  });

  it('runs the drain first, then every preStop at once; each stop signal follows its own preStop', () => {
    const hook = { kind: 'exec' as const, command: ['true'] as [string], timeoutMs: 1_000 };
    const d = createDriver(
      plan([proc('a', 'sidecar', { preStop: hook }), proc('app', 'app', { preStop: hook })], { drain: { kind: 'delay', ms: 500 } }),
    );
    d.send({ type: 'boot' }, d.spawned('a'), d.spawned('app'));
    expect(d.send({ type: 'signal', signal: 'SIGTERM' })).toEqual([graceTimer, { type: 'run-drain' }]);
    expect(d.send({ type: 'drain-done' })).toEqual([
      { type: 'run-hook', name: 'a', hook: 'preStop' },
      { type: 'run-hook', name: 'app', hook: 'preStop' },
    ]);
    // a's preStop is done, but the app still runs: a waits for it.
    expect(d.send({ type: 'hook-done', name: 'a', hook: 'preStop', ok: true })).toEqual([]);
    expect(d.send({ type: 'hook-done', name: 'app', hook: 'preStop', ok: false })).toEqual([stop('app')]);
    expect(signalsIn(d.send(d.exited('app', exited(0))))).toEqual(['a SIGTERM stop']);
  });

  it('rewrites the signal the app hears, and drops a forwarded one rewritten to none', () => {
    const d = createDriver(plan([proc('app', 'app')], { rewrite: { SIGTERM: 'SIGQUIT', SIGHUP: null } }));
    d.send({ type: 'boot' }, d.spawned('app'));
    expect(d.send({ type: 'signal', signal: 'SIGHUP' })).toEqual([]);
    expect(d.send({ type: 'signal', signal: 'SIGTERM' })).toEqual([graceTimer, stop('app', 'SIGQUIT')]);
  });

  it('during startup stops what runs, starts nothing new and exits 128+N', () => {
    const d = createDriver(plan([proc('a', 'sidecar'), proc('step', 'init'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('a'), d.spawned('step'));
    expect(d.send({ type: 'signal', signal: 'SIGTERM' })).toEqual([graceTimer, stop('step')]);
    expect(signalsIn(d.send(d.exited('step', exited(0))))).toEqual(['a SIGTERM stop']);
    expect(d.send(d.exited('a', exited(0)))).toContainEqual(finish(143));
  });

  it('sends SIGTERM to everything alive when the grace runs out, then SIGKILL', () => {
    const d = createDriver(plan([proc('a', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('a'), d.spawned('app'), { type: 'signal', signal: 'SIGTERM' });
    expect(d.send({ type: 'timer', timer: { kind: 'grace' } })).toEqual([
      { type: 'signal', name: 'a', signal: 'SIGTERM', purpose: 'expire' },
      { type: 'signal', name: 'app', signal: 'SIGTERM', purpose: 'expire' },
      { type: 'start-timer', timer: { kind: 'kill' }, ms: KILL_AFTER_GRACE_MS },
    ]);
    expect(signalsIn(d.send({ type: 'timer', timer: { kind: 'kill' } }))).toEqual(['a SIGKILL kill', 'app SIGKILL kill']);
    d.send(d.exited('app', signaled('SIGKILL')));
    expect(d.send(d.exited('a', signaled('SIGKILL')))).toContainEqual(finish(137));
  });

  it('kills everything at once on a second stop signal, cutting a preStop short', () => {
    const hook = { kind: 'exec' as const, command: ['sleep', '60'] as [string, ...string[]], timeoutMs: 60_000 };
    const d = createDriver(plan([proc('a', 'sidecar', { preStop: hook }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('a'), d.spawned('app'), { type: 'signal', signal: 'SIGINT' });
    expect(d.send({ type: 'signal', signal: 'SIGINT' })).toEqual([
      { type: 'cancel-hook', name: 'a', hook: 'preStop' },
      { type: 'signal', name: 'a', signal: 'SIGKILL', purpose: 'kill' },
      { type: 'signal', name: 'app', signal: 'SIGKILL', purpose: 'kill' },
    ]);
  });

  // Found by the lifecycle property: a spawn confirmed after "now" was in no SIGKILL and ran until the budget's end.
  it('kills at once a run whose spawn is confirmed after a second stop signal', () => {
    const d = createDriver(plan([proc('a', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, { type: 'signal', signal: 'SIGTERM' });
    expect(d.send({ type: 'signal', signal: 'SIGTERM' })).toEqual([]);
    expect(d.send(d.spawned('a'))).toEqual([{ type: 'signal', name: 'a', signal: 'SIGKILL', purpose: 'kill' }]);
    expect(d.send(d.exited('a', signaled('SIGKILL')))).toContainEqual(finish(143));
  });

  it('starts the grace budget at the time of the event that began teardown', () => {
    const d = createDriver(plan([proc('a', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('a'), d.spawned('app'));
    expect(d.state.teardownStartedAt).toBeUndefined();
    d.advance(1_234);
    d.send({ type: 'signal', signal: 'SIGTERM' });
    d.advance(500);
    d.send(d.exited('app', exited(0)));
    expect(d.state.teardownStartedAt).toBe(1_234);
  });

  it('still counts stop signals once everything is down: a second one cuts the final sweep short', () => {
    const d = createDriver(plan([proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('app'));
    expect(d.send(d.exited('app', exited(0)))).toContainEqual(finish(0));
    expect(d.send({ type: 'signal', signal: 'SIGTERM' })).toEqual([]);
    expect(isHurried(d.state)).toBe(false);
    expect(d.send({ type: 'signal', signal: 'SIGINT' })).toEqual([]);
    expect(isHurried(d.state)).toBe(true);
    expect(d.state.phase).toBe('done');
  });

  it('does not escalate on the first signal after the app exited on its own', () => {
    const d = createDriver(plan([proc('a', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('a'), d.spawned('app'), d.exited('app', exited(0)));
    expect(d.send({ type: 'signal', signal: 'SIGTERM' })).toEqual([]);
  });

  it('asks for no second forward of a signal the runner already passed on, and still stops on a stop signal', () => {
    const d = createDriver(plan([proc('app', 'app')], { rewrite: { SIGHUP: 'SIGUSR2' } }));
    d.send({ type: 'boot' }, d.spawned('app'));
    expect(d.send({ type: 'signal', signal: 'SIGHUP', forwarded: true })).toEqual([]);
    expect(d.send({ type: 'signal', signal: 'SIGTERM', forwarded: false })).toEqual([graceTimer, stop('app')]);
  });

  it('routes a forwarded signal the way the decision forwards it', () => {
    const context = (rewrites: DecideContext['signalRewrites']) => ({
      graph: createProcessGraph(plan([proc('app', 'app')])),
      graceMs: 1_000,
      hasDrain: false,
      signalRewrites: rewrites,
    });
    const running = (): ProcState => ({ status: 'running' }) as ProcState;
    expect(forwardRoute(context({}), running, 'SIGHUP')).toEqual({ name: 'app', signal: 'SIGHUP' });
    expect(forwardRoute(context({ SIGHUP: 'SIGUSR2' }), running, 'SIGHUP')).toEqual({ name: 'app', signal: 'SIGUSR2' });
    expect(forwardRoute(context({ SIGHUP: null }), running, 'SIGHUP')).toBeUndefined();
    expect(forwardRoute(context({}), running, 'SIGTERM')).toBeUndefined();
    expect(forwardRoute(context({}), () => ({ status: 'pending' }), 'SIGHUP')).toBeUndefined();
  });

  it('forwards other signals to the app, and drops them before the app runs', () => {
    const d = createDriver(plan([proc('step', 'init'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('step'));
    expect(d.send({ type: 'signal', signal: 'SIGHUP' })).toEqual([]);
    d.send(d.exited('step', exited(0)), d.spawned('app'));
    expect(d.send({ type: 'signal', signal: 'SIGUSR1' })).toEqual([{ type: 'signal', name: 'app', signal: 'SIGUSR1', purpose: 'forward' }]);
  });
});

describe('control requests', () => {
  const control = (id: number, command: ControlCommand): LifecycleEventBody => ({ type: 'control', id, command, uid: 0 });
  const replyOf = (effects: readonly Effect[]) => effects.find((effect) => effect.type === 'control-reply');

  it('are refused once everything is down, and change nothing', () => {
    const d = createDriver(plan([proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('app'), d.exited('app', exited(0)));
    expect(d.state.phase).toBe('done');
    expect(d.send(control(1, { kind: 'restart', name: 'app' }))).toEqual([
      { type: 'control-reply', id: 1, ok: false, message: 'sidecar-init is exiting' },
    ]);
    expect(d.state.phase).toBe('done');
    expect(d.state.procs.get('app')).toMatchObject({ status: 'exited' });
  });

  it('restarts a sidecar: preStop first, then its stop signal and grace; after its exit, with no backoff delay but once its old process group is swept, it is spawned and passes readiness again', () => {
    const preStop = { kind: 'exec' as const, command: ['drain'] as [string], timeoutMs: 1_000 };
    const d = createDriver(
      plan([
        proc('s', 'sidecar', { probe: true, preStop, stopSignal: 'SIGQUIT', restart: { ...proc('x', 'init').restart }, graceMs: 3_000 }),
        proc('app', 'app'),
      ]),
    );
    d.send({ type: 'boot' }, d.spawned('s'), ready('s'), d.spawned('app'));
    expect(d.send(control(1, { kind: 'restart', name: 's' }))).toEqual([
      { type: 'stop-watch', name: 's', watch: 'readiness' },
      { type: 'run-hook', name: 's', hook: 'preStop' },
      { type: 'control-reply', id: 1, ok: true, message: 'restarting s' },
    ]);
    expect(d.send({ type: 'hook-done', name: 's', hook: 'preStop', ok: true })).toEqual([
      { type: 'signal', name: 's', signal: 'SIGQUIT', purpose: 'control-stop' },
      { type: 'start-timer', timer: { kind: 'process-grace', name: 's' }, ms: 3_000 },
    ]);
    // Its policy is never, and still it comes back: a restart was asked for.
    expect(d.send(d.exited('s', signaled('SIGQUIT')))).toEqual([
      { type: 'stop-watch', name: 's', watch: 'readiness' },
      { type: 'cancel-timer', timer: { kind: 'process-grace', name: 's' } },
      { type: 'sweep-group', name: 's', graceMs: 3_000 },
    ]);
    // As every restart: never alongside what the last run left in its process group.
    expect(d.send({ type: 'group-swept', name: 's' })).toEqual([spawn('s')]);
    expect(d.send(d.spawned('s'))).toEqual([{ type: 'start-watch', name: 's', watch: 'readiness' }]);
    d.send(ready('s'));
    expect(d.state.procs.get('s')).toMatchObject({ status: 'running', up: true });
    expect(d.state.phase).toBe('running');
  });

  it('stops a sidecar and keeps it down, even a fatal one, until start', () => {
    const d = createDriver(plan([proc('s', 'sidecar', { fatal: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'));
    expect(replyOf(d.send(control(1, { kind: 'stop', name: 's' })))).toEqual({
      type: 'control-reply',
      id: 1,
      ok: true,
      message: 'stopping s; it stays down until started',
    });
    expect(d.send(d.exited('s', signaled('SIGTERM')))).toEqual([{ type: 'cancel-timer', timer: { kind: 'process-grace', name: 's' } }]);
    expect(d.state.procs.get('s')).toMatchObject({ status: 'exited', held: true });
    expect(d.state.phase).toBe('running');
    expect(replyOf(d.send(control(2, { kind: 'restart', name: 's' })))).toMatchObject({
      ok: false,
      message: 's is not running (stopped on request)',
    });
    // As every restart, the new run waits until what the last one left in its process group is gone.
    expect(d.send(control(3, { kind: 'start', name: 's' }))).toEqual([
      { type: 'sweep-group', name: 's', graceMs: LEFTOVER_GRACE_MS },
      { type: 'control-reply', id: 3, ok: true, message: 'starting s' },
    ]);
    expect(d.send(d.swept('s'))).toEqual([spawn('s')]);
    d.send(d.spawned('s'));
    expect(d.state.procs.get('s')).toMatchObject({ status: 'running', up: true });
  });

  it('refuses the app, init steps, unknown names, and anything once teardown began, saying why', () => {
    const d = createDriver(plan([proc('step', 'init'), proc('s', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('step'), d.exited('step', exited(0)), d.spawned('s'), d.spawned('app'));
    const refused = (command: ControlCommand) => (replyOf(d.send(control(9, command))) as { message: string }).message;
    expect(refused({ kind: 'stop', name: 'app' })).toBe(
      'the app cannot be stopped on request: its exit ends the pod; send sidecar-init SIGTERM to stop everything',
    );
    expect(refused({ kind: 'restart', name: 'app' })).toMatch(/^the app cannot be restarted on request/);
    expect(refused({ kind: 'restart', name: 'step' })).toBe(
      'step is an init step: it runs once, to completion, and cannot be restarted on request',
    );
    expect(refused({ kind: 'start', name: 's' })).toBe('s is not stopped (running); only a stopped sidecar can be started');
    expect(refused({ kind: 'stop', name: 'nope' })).toBe('no process is named "nope"; the processes are step, s, app');
    d.send({ type: 'signal', signal: 'SIGTERM' });
    expect(refused({ kind: 'restart', name: 's' })).toBe('sidecar-init is stopping everything; restart s is no longer possible');
  });

  it('sends a signal to the app or a sidecar as asked, not to a process that is not running', () => {
    const d = createDriver(plan([proc('s', 'sidecar', { probe: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('s'));
    expect(replyOf(d.send(control(1, { kind: 'signal', name: 'app', signal: 'SIGHUP' })))).toMatchObject({
      ok: false,
      message: 'app is not running (pending)',
    });
    d.send(ready('s'), d.spawned('app'));
    expect(d.send(control(2, { kind: 'signal', name: 'app', signal: 'SIGHUP' }))).toEqual([
      { type: 'signal', name: 'app', signal: 'SIGHUP', purpose: 'control' },
      { type: 'control-reply', id: 2, ok: true, message: 'sent SIGHUP to app' },
    ]);
  });

  it('a teardown during a requested stop sends nothing twice and ends when the sidecar is down', () => {
    const d = createDriver(plan([proc('s', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'));
    expect(signalsIn(d.send(control(1, { kind: 'stop', name: 's' })))).toEqual(['s SIGTERM control-stop']);
    expect(signalsIn(d.send({ type: 'signal', signal: 'SIGTERM' }))).toEqual(['app SIGTERM stop']);
    d.send(d.exited('app', signaled('SIGTERM')));
    expect(d.send(d.exited('s', signaled('SIGTERM')))).toContainEqual(finish(143));
  });
});

describe('what the log is told', () => {
  it('a sidecar up, once per run and only then; why teardown began, with whether the app ran; every exit', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true }), proc('step', 'init'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'));
    expect(d.lines).toEqual([]);
    d.send(ready('proxy'));
    expect(d.lines).toEqual([{ kind: 'up', name: 'proxy' }]);
    // Ready again while up is no news; an init step or the app never has an up line.
    d.send(ready('proxy'), d.spawned('step'), d.exited('step', exited(0)), d.spawned('app'));
    expect(d.lines).toEqual([{ kind: 'exited', name: 'step', status: exited(0) }]);
    d.send(d.exited('app', exited(3)));
    expect(d.lines).toEqual([
      { kind: 'exited', name: 'app', status: exited(3) },
      { kind: 'teardown', reason: { kind: 'app-exited', status: exited(3) }, appRunning: true },
    ]);
  });

  it('a stop signal during startup: received, then teardown with the app never started', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { probe: true }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), { type: 'signal', signal: 'SIGTERM' });
    expect(d.lines).toEqual([
      { kind: 'signal-received', signal: 'SIGTERM' },
      { kind: 'teardown', reason: { kind: 'signal', signal: 'SIGTERM' }, appRunning: false },
    ]);
  });

  it('the grace running out once; a second stop signal, during teardown and once everything is down; no line for a forwarded signal', () => {
    const d = createDriver(plan([proc('s', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('s'), d.spawned('app'));
    d.send({ type: 'signal', signal: 'SIGHUP', forwarded: true });
    expect(d.lines).toEqual([]);
    d.send({ type: 'signal', signal: 'SIGTERM' }, { type: 'timer', timer: { kind: 'grace' } });
    expect(d.lines.map((line) => line.kind)).toEqual(['signal-received', 'teardown', 'grace-expired']);
    d.send({ type: 'signal', signal: 'SIGINT' });
    expect(d.lines).toEqual([{ kind: 'second-stop-signal', signal: 'SIGINT', leftovers: false }]);
    d.send(d.exited('app', signaled('SIGKILL')), d.exited('s', signaled('SIGKILL')));
    expect(d.state.phase).toBe('done');
    d.send({ type: 'signal', signal: 'SIGTERM' });
    expect(d.lines).toEqual([{ kind: 'second-stop-signal', signal: 'SIGTERM', leftovers: true }]);
  });
});

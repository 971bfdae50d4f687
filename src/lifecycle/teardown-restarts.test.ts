import { describe, expect, it } from 'vitest';
import { createDriver } from '../../test/support/decide-driver.ts';
import { TEST_LIVENESS, TEST_ON_FAILURE, testPlan as plan, testProcess as proc } from '../../test/support/test-plan.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import type { LifecycleEventBody, LifecycleLine } from './events.ts';

// Each rule of teardown-restarts.ts on its own: which exit during teardown is
// restarted, and which restart under way when teardown begins goes on.
// decide.test.ts ("restarts during teardown") walks the common cases; these
// are the edges its assertions let through.

const exited = (code: number): ExitStatus => ({ kind: 'exited', code });
const sigterm = { type: 'signal', signal: 'SIGTERM' } as const;
const drain = { kind: 'delay' as const, ms: 500 };
const restartTimer = (name: string): LifecycleEventBody => ({ type: 'timer', timer: { kind: 'restart', name } });
const restartLines = (lines: readonly LifecycleLine[]) => lines.filter((line) => line.kind === 'restart-scheduled');

describe('restarts during teardown, rule by rule', () => {
  it('neither the app nor an init step that exits during the drain is restarted, whatever its policy', () => {
    const step = createDriver(
      plan([proc('proxy', 'sidecar'), proc('step', 'init', { restart: TEST_ON_FAILURE }), proc('app', 'app')], { drain }),
    );
    step.send({ type: 'boot' }, step.spawned('proxy'), step.spawned('step'), sigterm);
    expect(step.send(step.exited('step', exited(1)))).toEqual([]);
    expect(restartLines(step.lines)).toEqual([]);
    const app = createDriver(
      plan([proc('proxy', 'sidecar'), proc('app', 'app', { restart: { ...TEST_ON_FAILURE, policy: 'always' } })], { drain }),
    );
    app.send({ type: 'boot' }, app.spawned('proxy'), app.spawned('app'), sigterm);
    expect(app.send(app.exited('app', exited(0)))).toEqual([]);
    expect(restartLines(app.lines)).toEqual([]);
  });

  it('a sidecar stopped as unhealthy before teardown began stays down when it exits during it, though the app still needs it', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar', { liveness: TEST_LIVENESS }), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'));
    d.send({ type: 'liveness-failed', name: 'proxy', reason: 'probe failed' }, sigterm);
    expect(d.state.procs.get('proxy')).toMatchObject({ status: 'stopping', killedAsUnhealthy: true });
    expect(d.send(d.exited('proxy', { kind: 'signaled', signal: 'SIGTERM' }))).toEqual([
      { type: 'stop-watch', name: 'proxy', watch: 'liveness' },
      { type: 'cancel-timer', timer: { kind: 'process-grace', name: 'proxy' } },
    ]);
    expect(restartLines(d.lines)).toEqual([]);
  });

  it('nothing that exits once the budget ran out is restarted', () => {
    const d = createDriver(plan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('app'), sigterm, { type: 'timer', timer: { kind: 'grace' } });
    expect(d.send(d.exited('proxy', exited(1)))).toEqual([{ type: 'cancel-timer', timer: { kind: 'process-grace', name: 'proxy' } }]);
    expect(restartLines(d.lines)).toEqual([]);
  });

  it("an init step's restart under way when teardown begins is cancelled, even while the drain runs", () => {
    const d = createDriver(
      plan([proc('proxy', 'sidecar'), proc('step', 'init', { restart: TEST_ON_FAILURE }), proc('app', 'app')], { drain }),
    );
    d.send({ type: 'boot' }, d.spawned('proxy'), d.spawned('step'), d.exited('step', exited(1)));
    expect(restartLines(d.lines)).toEqual([{ kind: 'restart-scheduled', name: 'step', attempt: 1, delayMs: 0 }]);
    expect(d.send(sigterm)).toContainEqual({ type: 'cancel-timer', timer: { kind: 'restart', name: 'step' } });
    expect(d.state.procs.get('step')).toMatchObject({ status: 'exited' });
    expect(d.send(restartTimer('step'), d.swept('step'))).toEqual([]);
  });
});

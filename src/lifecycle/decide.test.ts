import { describe, expect, it } from 'vitest';
import type { Plan, ProcessSpec, Role } from '../config/plan.ts';
import type { ExitStatus } from '../process/exit-status.ts';
import { decide, KILL_AFTER_GRACE_MS } from './decide.ts';
import type { Effect, LifecycleEvent } from './events.ts';
import { createProcessGraph } from './graph.ts';
import type { LifecycleState } from './state.ts';
import { createInitialState } from './state.ts';

const GRACE_MS = 25_000;
const exited = (code: number): ExitStatus => ({ kind: 'exited', code });

function proc(name: string, role: Role, options: { probe?: boolean } = {}): Omit<ProcessSpec, 'after'> {
  return {
    name,
    role,
    command: ['true'],
    env: {},
    cwd: undefined,
    readiness: options.probe === true ? { probe: { kind: 'tcp', host: '127.0.0.1', port: 1 }, periodMs: 100, timeoutMs: 1000, deadlineMs: 1000 } : undefined,
  };
}

/** The default chain: each entry after the previous one, the app after all. */
function chainPlan(specs: readonly Omit<ProcessSpec, 'after'>[]): Plan {
  const processes = specs.map((spec, index) => ({
    ...spec,
    after: spec.role === 'app' ? specs.filter((other) => other.role !== 'app').map((other) => other.name) : index === 0 ? [] : [specs[index - 1]!.name],
  }));
  return { graceMs: GRACE_MS, logLevel: 'info', processes };
}

/** Feeds events one at a time, as the runner does, and keeps every effect in order. */
function createDriver(plan: Plan) {
  const context = { graph: createProcessGraph(plan), graceMs: plan.graceMs };
  let state: LifecycleState = createInitialState(plan);
  return {
    send(...events: LifecycleEvent[]): Effect[] {
      const effects: Effect[] = [];
      for (const event of events) {
        const decision = decide(context, state, event);
        state = decision.state;
        effects.push(...decision.effects);
      }
      return effects;
    },
    get state() {
      return state;
    },
  };
}

const spawn = (name: string): Effect => ({ type: 'spawn', name });
const stop = (name: string, signal: NodeJS.Signals = 'SIGTERM'): Effect => ({ type: 'signal', name, signal, purpose: 'stop' });

describe('startup order', () => {
  it('starts each entry only when the one before it is done or started, then the app', () => {
    const driver = createDriver(chainPlan([proc('net', 'init'), proc('proxy', 'sidecar', { probe: true }), proc('migrate', 'init'), proc('app', 'app')]));
    expect(driver.send({ type: 'boot' })).toEqual([spawn('net')]);
    expect(driver.send({ type: 'spawned', name: 'net' })).toEqual([]);
    expect(driver.send({ type: 'exited', name: 'net', status: exited(0) })).toEqual([spawn('proxy')]);
    expect(driver.send({ type: 'spawned', name: 'proxy' })).toEqual([{ type: 'watch-readiness', name: 'proxy' }]);
    expect(driver.send({ type: 'ready', name: 'proxy' })).toEqual([spawn('migrate')]);
    expect(driver.send({ type: 'spawned', name: 'migrate' }, { type: 'exited', name: 'migrate', status: exited(0) })).toEqual([spawn('app')]);
    expect(driver.state.phase).toBe('running');
  });

  it('counts a sidecar without a probe as started once it is spawned', () => {
    const driver = createDriver(chainPlan([proc('a', 'sidecar'), proc('b', 'sidecar'), proc('app', 'app')]));
    expect(driver.send({ type: 'boot' }, { type: 'spawned', name: 'a' })).toEqual([spawn('a'), spawn('b')]);
    expect(driver.send({ type: 'spawned', name: 'b' })).toEqual([spawn('app')]);
  });

  it('still starts the app when a sidecar that had started crashed during a later init step', () => {
    const driver = createDriver(chainPlan([proc('proxy', 'sidecar'), proc('step', 'init'), proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'proxy' }, { type: 'spawned', name: 'step' });
    expect(driver.send({ type: 'exited', name: 'proxy', status: exited(1) })).toEqual([]);
    expect(driver.send({ type: 'exited', name: 'step', status: exited(0) })).toEqual([spawn('app')]);
  });
});

describe('teardown when the app exits', () => {
  it('stops sidecars in reverse start order, one at a time, and exits with the app code', () => {
    const driver = createDriver(chainPlan([proc('a', 'sidecar'), proc('b', 'sidecar'), proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'a' }, { type: 'spawned', name: 'b' }, { type: 'spawned', name: 'app' });
    expect(driver.send({ type: 'exited', name: 'app', status: exited(3) })).toEqual([{ type: 'start-grace-timer', ms: GRACE_MS }, stop('b')]);
    expect(driver.send({ type: 'exited', name: 'b', status: { kind: 'signaled', signal: 'SIGTERM' } })).toEqual([stop('a')]);
    expect(driver.send({ type: 'exited', name: 'a', status: exited(1) })).toEqual([{ type: 'finish', exitCode: 3 }]);
  });

  it('reports 128+N when a signal killed the app', () => {
    const driver = createDriver(chainPlan([proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'app' });
    expect(driver.send({ type: 'exited', name: 'app', status: { kind: 'signaled', signal: 'SIGKILL' } })).toContainEqual({ type: 'finish', exitCode: 137 });
  });

  it('skips a sidecar that already exited while the app ran', () => {
    const driver = createDriver(chainPlan([proc('a', 'sidecar'), proc('b', 'sidecar'), proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'a' }, { type: 'spawned', name: 'b' }, { type: 'spawned', name: 'app' });
    expect(driver.send({ type: 'exited', name: 'b', status: exited(2) })).toEqual([]);
    expect(driver.send({ type: 'exited', name: 'app', status: exited(0) })).toEqual([{ type: 'start-grace-timer', ms: GRACE_MS }, stop('a')]);
  });
});

describe('startup failures', () => {
  it('an init step failing stops started sidecars in reverse order and exits with its code', () => {
    const driver = createDriver(chainPlan([proc('a', 'sidecar'), proc('b', 'sidecar'), proc('step', 'init'), proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'a' }, { type: 'spawned', name: 'b' }, { type: 'spawned', name: 'step' });
    expect(driver.send({ type: 'exited', name: 'step', status: exited(4) })).toEqual([{ type: 'start-grace-timer', ms: GRACE_MS }, stop('b')]);
    expect(driver.state.procs.get('app')?.status).toBe('skipped');
    expect(driver.send({ type: 'exited', name: 'b', status: exited(0) })).toEqual([stop('a')]);
    expect(driver.send({ type: 'exited', name: 'a', status: exited(0) })).toEqual([{ type: 'finish', exitCode: 4 }]);
  });

  it('a sidecar that misses its readiness deadline fails startup with exit 1', () => {
    const driver = createDriver(chainPlan([proc('proxy', 'sidecar', { probe: true }), proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'proxy' });
    expect(driver.send({ type: 'not-ready', name: 'proxy', reason: 'timed out' })).toEqual([
      { type: 'start-grace-timer', ms: GRACE_MS },
      { type: 'cancel-readiness', name: 'proxy' },
      stop('proxy'),
    ]);
    expect(driver.send({ type: 'exited', name: 'proxy', status: { kind: 'signaled', signal: 'SIGTERM' } })).toEqual([{ type: 'finish', exitCode: 1 }]);
  });

  it('a sidecar that exits before it is ready fails startup with its own code', () => {
    const driver = createDriver(chainPlan([proc('proxy', 'sidecar', { probe: true }), proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'proxy' });
    expect(driver.send({ type: 'exited', name: 'proxy', status: exited(9) })).toEqual([
      { type: 'cancel-readiness', name: 'proxy' },
      { type: 'start-grace-timer', ms: GRACE_MS },
      { type: 'finish', exitCode: 9 },
    ]);
  });

  it('a sidecar program that does not exist fails startup with 127', () => {
    const driver = createDriver(chainPlan([proc('proxy', 'sidecar'), proc('app', 'app')]));
    driver.send({ type: 'boot' });
    const effects = driver.send({ type: 'exited', name: 'proxy', status: { kind: 'spawn-failed', code: 127, reason: 'not found' } });
    expect(effects).toContainEqual({ type: 'finish', exitCode: 127 });
    expect(effects).not.toContainEqual(spawn('app'));
  });
});

describe('termination by signal', () => {
  it('passes SIGINT to the app first and keeps sidecars up until the app has exited', () => {
    const driver = createDriver(chainPlan([proc('a', 'sidecar'), proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'a' }, { type: 'spawned', name: 'app' });
    expect(driver.send({ type: 'signal', signal: 'SIGINT' })).toEqual([{ type: 'start-grace-timer', ms: GRACE_MS }, stop('app', 'SIGINT')]);
    expect(driver.send({ type: 'exited', name: 'app', status: exited(0) })).toEqual([stop('a')]);
    expect(driver.send({ type: 'exited', name: 'a', status: exited(0) })).toEqual([{ type: 'finish', exitCode: 0 }]);
  });

  it('during startup stops what runs, starts nothing new and exits 128+N', () => {
    const driver = createDriver(chainPlan([proc('a', 'sidecar'), proc('step', 'init'), proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'a' }, { type: 'spawned', name: 'step' });
    expect(driver.send({ type: 'signal', signal: 'SIGTERM' })).toEqual([{ type: 'start-grace-timer', ms: GRACE_MS }, stop('step')]);
    expect(driver.send({ type: 'exited', name: 'step', status: exited(0) })).toEqual([stop('a')]);
    expect(driver.send({ type: 'exited', name: 'a', status: exited(0) })).toEqual([{ type: 'finish', exitCode: 143 }]);
  });

  it('sends SIGTERM to everything alive when the grace runs out, then SIGKILL', () => {
    const driver = createDriver(chainPlan([proc('a', 'sidecar'), proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'a' }, { type: 'spawned', name: 'app' }, { type: 'signal', signal: 'SIGTERM' });
    expect(driver.send({ type: 'grace-expired' })).toEqual([
      { type: 'signal', name: 'a', signal: 'SIGTERM', purpose: 'expire' },
      { type: 'signal', name: 'app', signal: 'SIGTERM', purpose: 'expire' },
      { type: 'start-kill-timer', ms: KILL_AFTER_GRACE_MS },
    ]);
    expect(driver.send({ type: 'kill-timer' })).toEqual([
      { type: 'signal', name: 'a', signal: 'SIGKILL', purpose: 'kill' },
      { type: 'signal', name: 'app', signal: 'SIGKILL', purpose: 'kill' },
    ]);
    driver.send({ type: 'exited', name: 'app', status: { kind: 'signaled', signal: 'SIGKILL' } });
    expect(driver.send({ type: 'exited', name: 'a', status: { kind: 'signaled', signal: 'SIGKILL' } })).toEqual([{ type: 'finish', exitCode: 137 }]);
  });

  it('kills everything at once on a second stop signal', () => {
    const driver = createDriver(chainPlan([proc('a', 'sidecar'), proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'a' }, { type: 'spawned', name: 'app' }, { type: 'signal', signal: 'SIGINT' });
    expect(driver.send({ type: 'signal', signal: 'SIGINT' })).toEqual([
      { type: 'signal', name: 'a', signal: 'SIGKILL', purpose: 'kill' },
      { type: 'signal', name: 'app', signal: 'SIGKILL', purpose: 'kill' },
    ]);
  });

  it('does not escalate on the first signal after the app exited on its own', () => {
    const driver = createDriver(chainPlan([proc('a', 'sidecar'), proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'a' }, { type: 'spawned', name: 'app' }, { type: 'exited', name: 'app', status: exited(0) });
    expect(driver.send({ type: 'signal', signal: 'SIGTERM' })).toEqual([]);
  });

  it('forwards other signals to the app, and drops them before the app runs', () => {
    const driver = createDriver(chainPlan([proc('step', 'init'), proc('app', 'app')]));
    driver.send({ type: 'boot' }, { type: 'spawned', name: 'step' });
    expect(driver.send({ type: 'signal', signal: 'SIGHUP' })).toEqual([]);
    driver.send({ type: 'exited', name: 'step', status: exited(0) }, { type: 'spawned', name: 'app' });
    expect(driver.send({ type: 'signal', signal: 'SIGUSR1' })).toEqual([{ type: 'signal', name: 'app', signal: 'SIGUSR1', purpose: 'forward' }]);
  });
});

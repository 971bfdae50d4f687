import type { Logger } from 'pino';
import type { Plan, ProbeSpec, ProcessSpec } from '../config/plan.ts';
import type { Child, Spawner } from '../process/child.ts';
import type { Probe } from '../probes/probe.ts';
import { waitForReady } from '../probes/wait-for-ready.ts';
import { assertNever } from '../util/assert-never.ts';
import type { DecideContext } from './decide.ts';
import { decide } from './decide.ts';
import type { Effect, LifecycleEvent, SignalPurpose } from './events.ts';
import { createProcessGraph } from './graph.ts';
import { logEvent, logPhaseChange } from './log-transitions.ts';
import type { LifecycleState } from './state.ts';
import { createInitialState } from './state.ts';

const SIGNAL_LOG: Readonly<Record<SignalPurpose, { level: 'info' | 'warn'; message: string }>> = {
  stop: { level: 'info', message: 'stopping' },
  forward: { level: 'info', message: 'forwarded signal' },
  expire: { level: 'warn', message: 'grace budget exhausted' },
  kill: { level: 'warn', message: 'killed' },
};

export interface SuperviseDeps {
  readonly spawner: Spawner;
  /** A probe of `owner`: exec probes run with its env and cwd. */
  readonly createProbe: (probe: ProbeSpec, owner: ProcessSpec) => Probe;
  readonly logger: Logger;
}

export interface Supervision {
  /** Feeds an event (a received signal, say) into the lifecycle's single queue. */
  dispatch(event: LifecycleEvent): void;
  /** Resolves with the exit code once every planned process is down. */
  readonly done: Promise<number>;
  /** Milliseconds left of the grace budget (the whole budget before teardown began). */
  remainingGraceMs(): number;
}

/**
 * The runner: the only place where lifecycle decisions touch the world. Events
 * are handled one at a time, in arrival order, even when an effect raises a
 * new event synchronously (a failed spawn), so decide() always sees a settled state.
 */
export function startSupervision(plan: Plan, deps: SuperviseDeps): Supervision {
  const graph = createProcessGraph(plan);
  const context: DecideContext = { graph, graceMs: plan.graceMs };
  const children = new Map<string, Child>();
  const readinessWatches = new Map<string, AbortController>();
  const timers = new Set<NodeJS.Timeout>();
  const queue: LifecycleEvent[] = [];
  let state: LifecycleState = createInitialState(plan);
  let draining = false;
  let graceDeadline: number | undefined;
  let resolveDone: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });

  function dispatch(event: LifecycleEvent): void {
    queue.push(event);
    if (draining) return;
    draining = true;
    try {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) handle(next);
    } finally {
      draining = false;
    }
  }

  function handle(event: LifecycleEvent): void {
    if (state.phase === 'done') return;
    const before = state;
    const decision = decide(context, state, event);
    state = decision.state;
    logEvent(deps.logger, graph, children, event, before, state);
    logPhaseChange(deps.logger, before, state, plan.graceMs);
    for (const effect of decision.effects) perform(effect);
  }

  function perform(effect: Effect): void {
    switch (effect.type) {
      case 'spawn':
        return spawnProcess(effect.name);
      case 'watch-readiness':
        return watchReadiness(effect.name);
      case 'cancel-readiness':
        readinessWatches.get(effect.name)?.abort();
        readinessWatches.delete(effect.name);
        return;
      case 'signal':
        return signalProcess(effect);
      case 'start-grace-timer':
        graceDeadline = Date.now() + effect.ms;
        return startTimer(effect.ms, { type: 'grace-expired' });
      case 'start-kill-timer':
        return startTimer(effect.ms, { type: 'kill-timer' });
      case 'finish':
        for (const timer of timers) clearTimeout(timer);
        for (const watch of readinessWatches.values()) watch.abort();
        deps.logger.info({ event: 'finished', exitCode: effect.exitCode }, 'all processes stopped');
        return resolveDone(effect.exitCode);
      default:
        return assertNever(effect);
    }
  }

  function spawnProcess(name: string): void {
    const spec = graph.spec(name);
    const stdio = spec.role === 'app' ? 'inherit' : 'output';
    const result = deps.spawner.spawn({ name, command: spec.command, env: spec.env, cwd: spec.cwd, stdio });
    if (!result.ok) {
      deps.logger.error({ event: 'spawn-failed', proc: name, role: spec.role, exitCode: result.status.code }, result.status.reason);
      dispatch({ type: 'exited', name, status: result.status });
      return;
    }
    children.set(name, result.child);
    deps.logger.info({ event: 'spawned', proc: name, role: spec.role, pid: result.child.pid }, 'spawned');
    void result.child.exited.then((status) => dispatch({ type: 'exited', name, status }));
    dispatch({ type: 'spawned', name });
  }

  function watchReadiness(name: string): void {
    const spec = graph.spec(name);
    const readiness = spec.readiness;
    if (readiness === undefined) return;
    const controller = new AbortController();
    readinessWatches.set(name, controller);
    const probe = deps.createProbe(readiness.probe, spec);
    void waitForReady(probe, readiness, controller.signal).then((result) => {
      readinessWatches.delete(name);
      switch (result.kind) {
        case 'ready':
          deps.logger.debug({ event: 'probe-passed', proc: name, attempts: result.attempts, elapsedMs: result.elapsedMs }, probe.description);
          return dispatch({ type: 'ready', name });
        case 'deadline':
          return dispatch({
            type: 'not-ready',
            name,
            reason: `${probe.description} did not pass within ${readiness.deadlineMs}ms (${result.attempts} attempts; last: ${result.lastFailure})`,
          });
        case 'aborted':
          return;
        default:
          return assertNever(result);
      }
    });
  }

  function signalProcess(effect: Effect & { type: 'signal' }): void {
    const child = children.get(effect.name);
    if (child === undefined) return;
    const delivered = child.signal(effect.signal, 'group');
    const fields = { event: effect.purpose === 'forward' ? 'forwarded' : 'stopping', proc: effect.name, pid: child.pid, signal: effect.signal };
    // A child that is already gone is the normal end of a race with its own exit, not an error.
    if (!delivered) deps.logger.debug(fields, 'already gone');
    else deps.logger[SIGNAL_LOG[effect.purpose].level](fields, SIGNAL_LOG[effect.purpose].message);
  }

  function startTimer(ms: number, event: LifecycleEvent): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      dispatch(event);
    }, ms);
    timers.add(timer);
  }

  return {
    dispatch,
    done,
    remainingGraceMs: () => (graceDeadline === undefined ? plan.graceMs : Math.max(0, graceDeadline - Date.now())),
  };
}

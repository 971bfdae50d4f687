import type { Logger } from 'pino';
import type { DrainSpec, Plan, ProbeSpec, ProcessSpec } from '../config/plan.ts';
import type { HookContext } from '../hooks/hook.ts';
import type { runDrain } from '../hooks/run-drain.ts';
import type { runHook } from '../hooks/run-hook.ts';
import type { Child, Spawner } from '../process/child.ts';
import type { createLogMatcher, LogMatcher } from '../probes/log-matcher.ts';
import type { Probe } from '../probes/probe.ts';
import type { watchLiveness } from '../probes/watch-liveness.ts';
import type { watchReadiness } from '../probes/watch-readiness.ts';
import { assertNever } from '../util/assert-never.ts';
import { createAborts } from './aborts.ts';
import type { DecideContext } from './decide.ts';
import { decide } from './decide.ts';
import type { Effect, HookName, LifecycleEvent, SignalPurpose, WatchKind } from './events.ts';
import { createProcessGraph } from './graph.ts';
import { logEvent, logPhaseChange } from './log-transitions.ts';
import type { LifecycleState } from './state.ts';
import { createInitialState } from './state.ts';
import { createTimers } from './timers.ts';

const SIGNAL_LOG: Readonly<Record<SignalPurpose, { level: 'info' | 'warn'; message: string }>> = {
  stop: { level: 'info', message: 'stopping' },
  forward: { level: 'info', message: 'forwarded signal' },
  unhealthy: { level: 'warn', message: 'stopping to restart' },
  expire: { level: 'warn', message: 'grace budget exhausted' },
  kill: { level: 'warn', message: 'killed' },
};

/** What the runner uses to probe processes; main.ts wires the implementations. */
export interface ProbeKit {
  /** A probe of `owner`: exec probes run with its env and cwd, log probes read its matcher. */
  create(probe: ProbeSpec, owner: ProcessSpec, logMatcher: LogMatcher | undefined): Probe;
  readonly createLogMatcher: typeof createLogMatcher;
  readonly watchReadiness: typeof watchReadiness;
  readonly watchLiveness: typeof watchLiveness;
}

/** What the runner uses to run preStop, postStart and the drain. */
export interface HookKit {
  readonly run: typeof runHook;
  readonly drain: typeof runDrain;
}

export interface SuperviseDeps {
  readonly spawner: Spawner;
  readonly probes: ProbeKit;
  readonly hooks: HookKit;
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
  const { logger, spawner, probes, hooks } = deps;
  const graph = createProcessGraph(plan);
  const context: DecideContext = { graph, graceMs: plan.graceMs, hasDrain: plan.drain !== undefined, signalRewrites: plan.signalRewrites };
  const children = new Map<string, Child>();
  const logMatchers = new Map<string, LogMatcher>();
  const aborts = createAborts();
  const timers = createTimers((timer) => dispatch({ type: 'timer', timer }));
  const queue: LifecycleEvent[] = [];
  let state: LifecycleState = createInitialState(plan);
  let draining = false;
  let teardownStartedAt: number | undefined;
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
    if (before.phase !== 'stopping' && state.phase === 'stopping') teardownStartedAt = performance.now();
    logEvent(logger, graph, children, event, before, state);
    logPhaseChange(logger, before, state, plan.graceMs);
    for (const effect of decision.effects) perform(effect);
  }

  function perform(effect: Effect): void {
    switch (effect.type) {
      case 'spawn':
        return spawnProcess(graph.spec(effect.name));
      case 'start-watch':
        return startWatch(graph.spec(effect.name), effect.watch);
      case 'stop-watch':
        return aborts.abort(`${effect.watch}:${effect.name}`);
      case 'run-hook':
        return startHook(graph.spec(effect.name), effect.hook);
      case 'cancel-hook':
        return aborts.abort(`${effect.hook}:${effect.name}`);
      case 'run-drain':
        return startDrain(plan.drain);
      case 'cancel-drain':
        return aborts.abort('drain');
      case 'signal':
        return signalProcess(effect.name, effect.signal, effect.purpose);
      case 'start-timer':
        return timers.start(effect.timer, effect.ms);
      case 'cancel-timer':
        return timers.cancel(effect.timer);
      case 'restart-scheduled':
        logger.warn(
          { event: 'restarting', proc: effect.name, attempt: effect.attempt, delayMs: effect.delayMs },
          `restart ${effect.attempt} in ${effect.delayMs}ms`,
        );
        return;
      case 'finish':
        timers.clear();
        aborts.abortAll();
        logger.info({ event: 'finished', exitCode: effect.exitCode, ...budgetUsed() }, 'all processes stopped');
        return resolveDone(effect.exitCode);
      default:
        return assertNever(effect);
    }
  }

  function spawnProcess(spec: ProcessSpec): void {
    // A log readiness probe reads the output on its way to the container log.
    const matcher = spec.readiness?.probe.kind === 'log' ? probes.createLogMatcher(spec.readiness.probe.pattern) : undefined;
    if (matcher !== undefined) logMatchers.set(spec.name, matcher);
    const stdio = matcher !== undefined ? 'tee' : spec.role === 'app' ? 'inherit' : 'output';
    const result = spawner.spawn({ name: spec.name, command: spec.command, env: spec.env, cwd: spec.cwd, stdio, onOutput: matcher?.feed });
    if (!result.ok) {
      logger.error({ event: 'spawn-failed', proc: spec.name, role: spec.role, exitCode: result.status.code }, result.status.reason);
      dispatch({ type: 'exited', name: spec.name, status: result.status, now: performance.now() });
      return;
    }
    const { child } = result;
    children.set(spec.name, child);
    logger.info({ event: 'spawned', proc: spec.name, role: spec.role, pid: child.pid }, 'spawned');
    void child.exited.then((status) => dispatch({ type: 'exited', name: spec.name, status, now: performance.now() }));
    dispatch({ type: 'spawned', name: spec.name, now: performance.now() });
  }

  function startWatch(spec: ProcessSpec, watch: WatchKind): void {
    const key = `${watch}:${spec.name}`;
    const signal = aborts.open(key);
    if (watch === 'readiness' && spec.readiness !== undefined) {
      const probe = probes.create(spec.readiness.probe, spec, logMatchers.get(spec.name));
      probes.watchReadiness(
        probe,
        spec.readiness,
        (ready, detail) => {
          const fields = { event: ready ? 'probe-passed' : 'probe-failed', proc: spec.name, attempts: detail.attempts };
          if (ready) logger.debug(fields, probe.description);
          else logger.warn(fields, `not ready: ${detail.lastFailure ?? probe.description}`);
          dispatch({ type: 'readiness', name: spec.name, ready });
        },
        signal,
      );
    }
    if (watch === 'liveness' && spec.liveness !== undefined) {
      const probe = probes.create(spec.liveness.probe, spec, undefined);
      probes.watchLiveness(
        probe,
        spec.liveness,
        (detail) => {
          aborts.close(key, signal);
          const reason = `${probe.description} failed ${detail.failures} times in a row; last: ${detail.lastFailure}`;
          logger.warn({ event: 'liveness-failed', proc: spec.name, failures: detail.failures }, reason);
          dispatch({ type: 'liveness-failed', name: spec.name, reason });
        },
        signal,
      );
    }
  }

  function hookContext(spec: ProcessSpec, label: string): HookContext {
    return {
      spawner,
      env: spec.env,
      cwd: spec.cwd,
      onOutputLine: (line, stream) => logger.info({ event: 'hook-output', proc: spec.name, hook: label, stream }, line),
    };
  }

  function startHook(spec: ProcessSpec, hook: HookName): void {
    const hookSpec = spec[hook];
    if (hookSpec === undefined) return;
    const key = `${hook}:${spec.name}`;
    const signal = aborts.open(key);
    logger.info({ event: 'hook-started', proc: spec.name, hook }, `${hook} started`);
    void hooks.run(hookSpec, hookContext(spec, hook), signal).then((outcome) => {
      aborts.close(key, signal);
      const fields = { event: 'hook-done', proc: spec.name, hook, elapsedMs: outcome.elapsedMs, ok: outcome.ok };
      // A failing preStop is reported and changes nothing else; a failing postStart restarts its process.
      if (outcome.ok) logger.info(fields, `${hook} finished`);
      else logger.warn(fields, `${hook} failed: ${outcome.reason}`);
      dispatch({ type: 'hook-done', name: spec.name, hook, ok: outcome.ok });
    });
  }

  function startDrain(drain: DrainSpec | undefined): void {
    if (drain === undefined) return;
    const signal = aborts.open('drain');
    logger.info({ event: 'drain-started', ...(drain.kind === 'delay' ? { delayMs: drain.ms } : {}) }, 'draining before any stop signal');
    const owner = graph.app;
    void hooks.drain(drain, hookContext(owner, 'drain'), signal).then((outcome) => {
      aborts.close('drain', signal);
      const fields = { event: 'drain-done', elapsedMs: outcome.elapsedMs, ok: outcome.ok };
      if (outcome.ok) logger.info(fields, 'drain finished');
      else logger.warn(fields, `drain failed: ${outcome.reason}`);
      dispatch({ type: 'drain-done' });
    });
  }

  function signalProcess(name: string, signal: NodeJS.Signals, purpose: SignalPurpose): void {
    const child = children.get(name);
    if (child === undefined) return;
    const delivered = child.signal(signal, graph.spec(name).signalTarget);
    const fields = { event: purpose === 'forward' ? 'forwarded' : 'stopping', proc: name, pid: child.pid, signal, ...budgetUsed() };
    // A child that is already gone is the normal end of a race with its own exit, not an error.
    if (!delivered) logger.debug(fields, 'already gone');
    else logger[SIGNAL_LOG[purpose].level](fields, SIGNAL_LOG[purpose].message);
  }

  /** How much of the grace budget teardown has used so far, for the log. */
  function budgetUsed(): { budgetUsedMs?: number } {
    return teardownStartedAt === undefined ? {} : { budgetUsedMs: Math.round(performance.now() - teardownStartedAt) };
  }

  return {
    dispatch,
    done,
    remainingGraceMs: () =>
      teardownStartedAt === undefined ? plan.graceMs : Math.max(0, plan.graceMs - (performance.now() - teardownStartedAt)),
  };
}

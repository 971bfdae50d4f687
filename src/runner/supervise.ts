import type { Plan } from '../plan/plan.ts';
import type { LastExit } from '../plan/status-snapshot.ts';
import { assertNever } from '../plan/assert-never.ts';
import { createAborts } from './aborts.ts';
import type { DecideContext } from '../lifecycle/decide.ts';
import { decide, forwardRoute, isHurried } from '../lifecycle/decide.ts';
import { createEventQueue } from './event-queue.ts';
import { createControlReplies } from './control-replies.ts';
import type { Effect, LifecycleEvent, LifecycleEventBody } from '../lifecycle/events.ts';
import { logFinished, logLine } from './lifecycle-lines.ts';
import { createProcessGraph } from '../plan/process-graph.ts';
import { cancelDrain, cancelHook, startDrain, startHook } from './hook-effects.ts';
import { createLifecycleLog } from './lifecycle-log.ts';
import { killExternal, stopExternalProcess, watchExternal } from './external-effects.ts';
import { logSignalled, signalProcess, spawnProcess, sweepGroup } from './process-effects.ts';
import { FORWARDED_SIGNALS } from '../plan/signal-sets.ts';
import type { ControlSource, SuperviseDeps } from './ports.ts';
import type { Runner } from './runner.ts';
import type { Child } from '../process/child.ts';
import type { LifecycleState, ProcState } from '../lifecycle/state.ts';
import { createInitialState } from '../lifecycle/state.ts';
import { describeLastExit, describeStatus } from './status-view.ts';
import { createTimers } from './timers.ts';
import { startWatch, stopWatch } from './watch-effects.ts';
import { watchUntil } from './announce-effects.ts';
import { announcementOf } from '../lifecycle/announcement.ts';
import { monotonicMs } from '../support/monotonic-clock.ts';

/** What main.ts holds of a running lifecycle; the status server and the control socket read it as their sources (ports.ts). */
export interface Supervision extends ControlSource {
  /** Feeds an event into the lifecycle's single queue. */
  dispatch(event: LifecycleEventBody): void;
  /** A signal sidecar-init received: passed on to the app at once when it is the app's, then decided on. */
  receiveSignal(signal: NodeJS.Signals): void;
  /** The addon's handler passed signals on a window ago (signal-forwarder.ts): they are logged and told to the lifecycle now. */
  handleForwarded(): void;
  /** Resolves with the exit code once every planned process is down. */
  readonly done: Promise<number>;
  /** Milliseconds left of the grace budget (the whole budget before teardown began). */
  remainingGraceMs(): number;
  /**
   * Aborted by a second SIGTERM/SIGINT during teardown or after it: whatever
   * still waits on the budget (the final sweep of leftovers) must stop waiting.
   */
  readonly hurry: AbortSignal;
  /** The text of the `finished` line (exit code, reason, the process at fault) once done has resolved. */
  finishedMessage(): string | undefined;
}

/** Every process has a state from the start; for the type checker only. */
const NOT_STARTED: ProcState = { status: 'pending' };
/**
 * The runner: the only place where lifecycle decisions touch the world. Each
 * event goes through decide(), the transition is logged, and each effect goes
 * to its handler (process-effects.ts, watch-effects.ts, hook-effects.ts,
 * external-effects.ts, control-replies.ts, timers.ts, and lifecycle-lines.ts
 * for the 'log' and 'finish' lines), which feeds outcomes back as events.
 * Beside them, the --announce file hears the state after each event, and
 * announce-effects.ts watches the --until file from the start.
 */
export function startSupervision(plan: Plan, deps: SuperviseDeps): Supervision {
  const graph = createProcessGraph(plan);
  const context: DecideContext = { graph, graceMs: plan.graceMs, hasDrain: plan.drain !== undefined, signalRewrites: plan.rewrite };
  const log = createLifecycleLog(deps.logger, graph);
  const queue = createEventQueue(handle);
  /**
   * Every event enters here: what the addon's handler passed on before it is
   * logged and told first, so the log and the lifecycle hear of everything
   * in the order it came, however late the handler's window would have.
   */
  const dispatch = (event: LifecycleEventBody): void => {
    handleForwarded();
    queue.dispatch(event);
  };
  const runner: Runner = {
    plan,
    graph,
    deps,
    log,
    aborts: createAborts(),
    timers: createTimers((timer) => dispatch({ type: 'timer', timer })),
    children: new Map(),
    logMatchers: new Map(),
    channels: new Map(),
    lastProbeFailures: new Map(),
    prefixWidth: Math.max(0, ...plan.processes.filter((spec) => spec.output === 'prefix').map((spec) => spec.name.length)),
    dispatch,
  };
  const lineView = {
    log,
    graph,
    graceMs: plan.graceMs,
    pidOf: (name: string) => runner.children.get(name)?.pid,
    lastProbeFailureOf: (name: string) => runner.lastProbeFailures.get(name),
  };
  const controls = createControlReplies(log);
  const hurry = new AbortController();
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let state: LifecycleState = createInitialState(plan);
  // For the status only: what the state does not keep.
  const spawns = new Map<string, number>();
  const lastExits = new Map<string, LastExit>();
  let finishedAt: number | undefined;
  let finishedMessage: string | undefined;

  function handle(event: LifecycleEvent): void {
    if (event.type === 'spawned') spawns.set(event.name, (spawns.get(event.name) ?? 0) + 1);
    if (event.type === 'exited') lastExits.set(event.name, describeLastExit(event.status, new Date()));
    const decision = decide(context, state, event);
    state = decision.state;
    deps.announce?.announcer?.update(announcementOf(context, state));
    if (isHurried(state)) hurry.abort();
    for (const effect of decision.effects) perform(effect, event.at);
    routeSignals();
  }

  /**
   * The addon's handler is given the route after every event (spawned, exited,
   * stopping...), so a signal for the app goes straight from the handler along
   * the route decide() would take, whatever the event loop is doing.
   */
  function routeSignals(): void {
    const { forwarder } = deps;
    if (forwarder === undefined) return;
    const app = graph.app.name;
    const child = runner.children.get(app);
    // The route follows the app's status and run alone (the rewrites are the plan's): most events leave it as it was.
    const { status } = procOf(app);
    if (status === routedStatus && child === routedChild) return;
    routedStatus = status;
    routedChild = child;
    const sentAs = new Map<NodeJS.Signals, NodeJS.Signals>();
    for (const signal of child === undefined ? [] : FORWARDED_SIGNALS) {
      const route = forwardRoute(context, procOf, signal);
      if (route !== undefined) sentAs.set(signal, route.signal);
    }
    const target = child === undefined || sentAs.size === 0 ? 0 : child.forwardTarget(graph.spec(app).signalTarget);
    if (target !== 0) forwardedPid = child!.pid;
    forwarder.route(target, sentAs);
  }

  let routedStatus: ProcState['status'] | undefined;
  let routedChild: Child | undefined;
  /** The app the handler's route last led to: what its counts were passed on to (the app runs once), even once it has exited. */
  let forwardedPid = 0;

  function procOf(name: string): ProcState {
    return state.procs.get(name) ?? NOT_STARTED;
  }

  /** `at`: the time of the event that asked for the effect. */
  function perform(effect: Effect, at: number): void {
    switch (effect.type) {
      case 'spawn':
        return spawnProcess(runner, graph.spec(effect.name));
      case 'start-watch':
        return startWatch(runner, graph.spec(effect.name), effect.watch);
      case 'stop-watch':
        return stopWatch(runner, effect.name, effect.watch);
      case 'run-hook':
        return startHook(runner, graph.spec(effect.name), effect.hook);
      case 'cancel-hook':
        return cancelHook(runner, effect.name, effect.hook);
      case 'run-drain':
        return startDrain(runner, plan.drain);
      case 'cancel-drain':
        return cancelDrain(runner);
      case 'signal':
        return signalProcess(runner, effect, budgetUsed(at));
      case 'sweep-group':
        return sweepGroup(runner, effect.name, effect.graceMs);
      case 'start-timer':
        return runner.timers.start(effect.timer, effect.ms);
      case 'cancel-timer':
        return runner.timers.cancel(effect.timer);
      case 'log':
        return logLine(lineView, effect.line);
      case 'watch-external':
        return watchExternal(runner, graph.spec(effect.name));
      case 'stop-external':
        return stopExternalProcess(runner, graph.spec(effect.name), effect.budgetMs);
      case 'kill-external':
        return killExternal(runner, effect.name);
      case 'control-reply':
        return controls.reply(effect);
      case 'finish':
        finishedAt = at;
        // The last forwarded lines before the `finished` one; nothing is routed any more (the app is down).
        handleForwarded();
        runner.timers.clear();
        runner.aborts.abortAll();
        finishedMessage = logFinished(lineView, state, effect.exitCode, budgetUsed(at));
        return finish(effect.exitCode);
      default:
        return assertNever(effect);
    }
  }

  /**
   * The one event handled ahead of the queue: a signal for the app goes to it
   * before the decision and its log lines (measured with bench/signal-forward.ts:
   * they are most of what a forward costs). Signal listeners run from the event
   * loop, never inside handle(), so `state` is settled and the route is the one
   * decide() would take; the event then tells it the forward is done. With the
   * addon's handler (deps.forwarder) a routed signal has been passed on before
   * any JavaScript ran, and reaches this listener only when other JavaScript
   * listens for it too: it is then logged with the handler's next counts.
   */
  function receiveSignal(signal: NodeJS.Signals): void {
    if (deps.forwarder?.take(signal) === true) return;
    // What was passed on before this signal is told before it (a SIGHUP, then the SIGTERM).
    handleForwarded();
    const route = forwardRoute(context, procOf, signal);
    if (route !== undefined) signalProcess(runner, { ...route, purpose: 'forward' }, budgetUsed(monotonicMs()));
    queue.dispatch({ type: 'signal', signal, forwarded: route !== undefined });
  }

  /**
   * What the addon's handler passed on since the last time: one line per
   * signal with its count (the signal as sent: its rewrite, if any), and one
   * event per signal for the lifecycle, whose decision a forwarded signal does
   * not change (decide.ts). After the finish only the lines.
   */
  function handleForwarded(): void {
    const counts = deps.forwarder?.takeCounts();
    if (counts === undefined || counts.length === 0) return;
    const app = graph.app.name;
    for (const { signal, forwarded, gone } of counts) {
      const effect = { name: app, signal: context.signalRewrites[signal] ?? signal, purpose: 'forward' } as const;
      if (forwarded > 0) logSignalled(runner, effect, forwardedPid, true, budgetUsed(monotonicMs()), forwarded);
      if (gone > 0) logSignalled(runner, effect, forwardedPid, false, budgetUsed(monotonicMs()), gone);
      if (finishedAt === undefined) queue.dispatch({ type: 'signal', signal, forwarded: true });
    }
  }

  /** How much of the grace budget teardown had used at `at`, for the log. */
  function budgetUsed(at: number): { budgetUsedMs?: number } {
    return state.teardownStartedAt === undefined ? {} : { budgetUsedMs: Math.round(at - state.teardownStartedAt) };
  }

  if (plan.until !== undefined && deps.announce !== undefined) watchUntil(runner, deps.announce, plan.until);

  return {
    dispatch,
    control: (command, uid) => controls.ask(command, uid, dispatch),
    receiveSignal,
    handleForwarded,
    done,
    hurry: hurry.signal,
    remainingGraceMs: () =>
      state.teardownStartedAt === undefined ? plan.graceMs : Math.max(0, plan.graceMs - (monotonicMs() - state.teardownStartedAt)),
    finishedMessage: () => finishedMessage,
    snapshot: () =>
      describeStatus(
        graph,
        state,
        {
          spawns,
          lastExits,
          pidOf: lineView.pidOf,
          statusTextOf: (name) => runner.channels.get(name)?.status,
          finishedAt,
          reapedOrphans: deps.reapedOrphans(),
        },
        monotonicMs(),
      ),
  };
}

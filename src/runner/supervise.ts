import type { Plan } from '../plan/plan.ts';
import type { LastExit, StatusSnapshot } from '../plan/status-snapshot.ts';
import { assertNever } from '../plan/assert-never.ts';
import { createAborts } from './aborts.ts';
import type { DecideContext } from '../lifecycle/decide.ts';
import { decide, forwardRoute, isHurried } from '../lifecycle/decide.ts';
import { createEventQueue, type EventQueue } from './event-queue.ts';
import { createControlReplies } from './control-replies.ts';
import type { Effect, LifecycleEvent, LifecycleEventBody } from '../lifecycle/events.ts';
import { type LineView, logFinished, logLine } from './lifecycle-lines.ts';
import { createProcessGraph, type ProcessGraph } from '../plan/process-graph.ts';
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
import { graceLeftMs, graceUsedMs } from '../lifecycle/grace-budget.ts';
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
 *
 * Its steps, each a function below: the loop's state and queue (createLoop);
 * per event (handleEvent) the status bookkeeping (recordForStatus), the
 * decision and its effects (perform, the effect switch, and finishRun), and
 * the addon's signal route (routeSignals); signals received ahead of the queue
 * (receiveSignal, handleForwarded); the status snapshot (snapshotOf).
 */
export function startSupervision(plan: Plan, deps: SuperviseDeps): Supervision {
  const loop = createLoop(plan, deps);
  if (plan.until !== undefined && deps.announce !== undefined) watchUntil(loop.runner, deps.announce, plan.until);
  return {
    dispatch: loop.dispatch,
    control: (command, uid) => loop.controls.ask(command, uid, loop.dispatch),
    receiveSignal: (signal) => receiveSignal(loop, signal),
    handleForwarded: () => handleForwarded(loop),
    done: loop.done,
    hurry: loop.hurry.signal,
    remainingGraceMs: () => graceLeftMs(plan.graceMs, loop.state, monotonicMs()),
    finishedMessage: () => loop.finishedMessage,
    snapshot: () => snapshotOf(loop),
  };
}

/** The running lifecycle, shared by the steps below: built once (createLoop); `state` and the bookkeeping change as events are handled. */
interface Loop {
  readonly plan: Plan;
  readonly deps: SuperviseDeps;
  readonly graph: ProcessGraph;
  readonly context: DecideContext;
  readonly runner: Runner;
  readonly lineView: LineView;
  readonly controls: ReturnType<typeof createControlReplies>;
  readonly queue: EventQueue;
  readonly hurry: AbortController;
  readonly done: Promise<number>;
  readonly finish: (code: number) => void;
  /** Every event enters here (see createLoop). */
  readonly dispatch: (event: LifecycleEventBody) => void;
  state: LifecycleState;
  readonly route: SignalRoute;
  readonly status: StatusBook;
  finishedMessage: string | undefined;
}

/** The route the addon's handler was last given (routeSignals). */
interface SignalRoute {
  status: ProcState['status'] | undefined;
  child: Child | undefined;
  /** The app the handler's route last led to: what its counts were passed on to (the app runs once), even once it has exited. */
  forwardedPid: number;
}

/** For the status only: what the state does not keep. */
interface StatusBook {
  readonly spawns: Map<string, number>;
  readonly lastExits: Map<string, LastExit>;
  finishedAt: number | undefined;
}

function createLoop(plan: Plan, deps: SuperviseDeps): Loop {
  const graph = createProcessGraph(plan);
  const context: DecideContext = { graph, graceMs: plan.graceMs, hasDrain: plan.drain !== undefined, signalRewrites: plan.rewrite };
  const log = createLifecycleLog(deps.logger, graph);
  const queue = createEventQueue((event) => handleEvent(loop, event));
  /**
   * Every event enters here: what the addon's handler passed on before it is
   * logged and told first, so the log and the lifecycle hear of everything
   * in the order it came, however late the handler's window would have.
   */
  const dispatch = (event: LifecycleEventBody): void => {
    handleForwarded(loop);
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
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const loop: Loop = {
    plan,
    deps,
    graph,
    context,
    runner,
    lineView: {
      log,
      graph,
      graceMs: plan.graceMs,
      pidOf: (name: string) => runner.children.get(name)?.pid,
      lastProbeFailureOf: (name: string) => runner.lastProbeFailures.get(name),
    },
    controls: createControlReplies(log),
    queue,
    hurry: new AbortController(),
    done,
    finish,
    dispatch,
    state: createInitialState(plan),
    route: { status: undefined, child: undefined, forwardedPid: 0 },
    status: { spawns: new Map(), lastExits: new Map(), finishedAt: undefined },
    finishedMessage: undefined,
  };
  return loop;
}

/** One event, taken from the queue: noted for the status, decided on, its effects performed, the signal route updated. */
function handleEvent(loop: Loop, event: LifecycleEvent): void {
  const { context, deps, hurry } = loop;
  recordForStatus(loop.status, event);
  const decision = decide(context, loop.state, event);
  loop.state = decision.state;
  deps.announce?.announcer?.update(announcementOf(context, loop.state));
  if (isHurried(loop.state)) hurry.abort();
  for (const effect of decision.effects) perform(loop, effect, event.at);
  routeSignals(loop);
}

function recordForStatus(status: StatusBook, event: LifecycleEvent): void {
  const { spawns, lastExits } = status;
  if (event.type === 'spawned') spawns.set(event.name, (spawns.get(event.name) ?? 0) + 1);
  if (event.type === 'exited') lastExits.set(event.name, describeLastExit(event.status, new Date()));
}

/**
 * The addon's handler is given the route after every event (spawned, exited,
 * stopping...), so a signal for the app goes straight from the handler along
 * the route decide() would take, whatever the event loop is doing.
 */
function routeSignals(loop: Loop): void {
  const { deps, graph, runner, context, route: routed } = loop;
  const procOf = (name: string) => procOfLoop(loop, name);
  const { forwarder } = deps;
  if (forwarder === undefined) return;
  const app = graph.app.name;
  const child = runner.children.get(app);
  // The route follows the app's status and run alone (the rewrites are the plan's): most events leave it as it was.
  const { status } = procOf(app);
  if (status === routed.status && child === routed.child) return;
  routed.status = status;
  routed.child = child;
  const sentAs = new Map<NodeJS.Signals, NodeJS.Signals>();
  for (const signal of child === undefined ? [] : FORWARDED_SIGNALS) {
    const route = forwardRoute(context, procOf, signal);
    if (route !== undefined) sentAs.set(signal, route.signal);
  }
  const target = child === undefined || sentAs.size === 0 ? 0 : child.forwardTarget(graph.spec(app).signalTarget);
  if (target !== 0) routed.forwardedPid = child!.pid;
  forwarder.route(target, sentAs);
}

function procOfLoop(loop: Loop, name: string): ProcState {
  return loop.state.procs.get(name) ?? NOT_STARTED;
}

/** The effect switch. `at`: the time of the event that asked for the effect. */
function perform(loop: Loop, effect: Effect, at: number): void {
  const { runner, graph, plan, lineView, controls } = loop;
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
      return signalProcess(runner, effect, budgetUsed(loop, at));
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
      return finishRun(loop, effect.exitCode, at);
    default:
      return assertNever(effect);
  }
}

/** The 'finish' effect: the last lines, nothing left waiting, and `done` resolved with the exit code. */
function finishRun(loop: Loop, exitCode: number, at: number): void {
  const { runner } = loop;
  loop.status.finishedAt = at;
  // The last forwarded lines before the `finished` one; nothing is routed any more (the app is down).
  handleForwarded(loop);
  runner.timers.clear();
  runner.aborts.abortAll();
  loop.finishedMessage = logFinished(loop.lineView, loop.state, exitCode, budgetUsed(loop, at));
  loop.finish(exitCode);
}

/**
 * The one event handled ahead of the queue: a signal for the app goes to it
 * before the decision and its log lines (measured with bench/signal-forward.ts:
 * they are most of what a forward costs). Signal listeners run from the event
 * loop, never inside handleEvent(), so `state` is settled and the route is the one
 * decide() would take; the event then tells it the forward is done. With the
 * addon's handler (deps.forwarder) a routed signal has been passed on before
 * any JavaScript ran, and reaches this listener only when other JavaScript
 * listens for it too: it is then logged with the handler's next counts.
 */
function receiveSignal(loop: Loop, signal: NodeJS.Signals): void {
  const { deps, context, runner, queue } = loop;
  const procOf = (name: string) => procOfLoop(loop, name);
  if (deps.forwarder?.take(signal) === true) return;
  // What was passed on before this signal is told before it (a SIGHUP, then the SIGTERM).
  handleForwarded(loop);
  const route = forwardRoute(context, procOf, signal);
  if (route !== undefined) signalProcess(runner, { ...route, purpose: 'forward' }, budgetUsed(loop, monotonicMs()));
  const count = deps.forwarder?.deliveries(signal) ?? 1;
  queue.dispatch(
    count > 1
      ? { type: 'signal', signal, forwarded: route !== undefined, count }
      : { type: 'signal', signal, forwarded: route !== undefined },
  );
}

/**
 * What the addon's handler passed on since the last time: one line per
 * signal with its count (the signal as sent: its rewrite, if any), and one
 * event per signal for the lifecycle, whose decision a forwarded signal does
 * not change (decide.ts). After the finish only the lines.
 */
function handleForwarded(loop: Loop): void {
  const { deps, graph, context, runner, queue } = loop;
  const counts = deps.forwarder?.takeCounts();
  if (counts === undefined || counts.length === 0) return;
  const app = graph.app.name;
  const { forwardedPid } = loop.route;
  for (const { signal, forwarded, gone } of counts) {
    const effect = { name: app, signal: context.signalRewrites[signal] ?? signal, purpose: 'forward' } as const;
    if (forwarded > 0) logSignalled(runner, effect, forwardedPid, true, budgetUsed(loop, monotonicMs()), forwarded);
    if (gone > 0) logSignalled(runner, effect, forwardedPid, false, budgetUsed(loop, monotonicMs()), gone);
    if (loop.status.finishedAt === undefined) queue.dispatch({ type: 'signal', signal, forwarded: true });
  }
}

/** How much of the grace budget teardown had used at `at` (grace-budget.ts), for the log. */
function budgetUsed(loop: Loop, at: number): { budgetUsedMs?: number } {
  const usedMs = graceUsedMs(loop.state, at);
  return usedMs === undefined ? {} : { budgetUsedMs: Math.round(usedMs) };
}

/** What the status server shows now: the state, and what only the runner knows of it. */
function snapshotOf(loop: Loop): StatusSnapshot {
  const { graph, runner, deps, status } = loop;
  return describeStatus(
    graph,
    loop.state,
    {
      spawns: status.spawns,
      lastExits: status.lastExits,
      pidOf: loop.lineView.pidOf,
      statusTextOf: (name) => runner.channels.get(name)?.status,
      finishedAt: status.finishedAt,
      reapedOrphans: deps.reapedOrphans(),
    },
    monotonicMs(),
  );
}

import { constants } from 'node:os';
import type { Plan, ProcessSpec } from '../../src/plan/plan.ts';
import type { DecideContext } from '../../src/lifecycle/decide.ts';
import { decide, KILL_AFTER_GRACE_MS } from '../../src/lifecycle/decide.ts';
import type { Effect, LifecycleEventBody, TimerKey } from '../../src/lifecycle/events.ts';
import { timerId } from '../../src/lifecycle/events.ts';
import { createProcessGraph } from '../../src/plan/process-graph.ts';
import type { LifecycleState } from '../../src/lifecycle/state.ts';
import { createInitialState, isAlive } from '../../src/lifecycle/state.ts';
import { createRandom, describeEffect, describeEvent } from './lifecycle-trace.ts';
import type { ExitStatus } from '../../src/plan/exit-status.ts';

// A small model of the world the runner connects the reducer to, for the
// property tests of decide(): it answers each effect with what a real process,
// timer, hook or external would plausibly do (a spawn is confirmed or fails, a
// signalled process exits unless it ignores the signal, SIGKILL always ends
// it, a timer fires when its time comes), and between those answers it lets
// the test's random steps inject what nobody controls (stop signals, crashes
// with any code or signal, readiness flips, failing liveness probes, externals
// appearing and vanishing, time passing). Every decision is checked against
// the lifecycle's promises; what broke one is returned with the trace.

/** What a random step asks the world to do; each field is used by some kinds of step. */
export interface WorldStep {
  /** Picks one of the things that can happen now (a pending answer, an outside event, time passing). */
  readonly pick: number;
  /** The signal, when the step sends one. */
  readonly signal: NodeJS.Signals;
  /** The status, when the step crashes a process. */
  readonly status: ExitStatus;
  /** A readiness verdict, a hook's outcome. */
  readonly flag: boolean;
  /** How far time moves, when the step lets it pass. */
  readonly ms: number;
}

export interface WorldInput {
  readonly plan: Plan;
  /** Processes that ignore every signal but SIGKILL. */
  readonly ignoresTerm: ReadonlySet<string>;
  readonly steps: readonly WorldStep[];
  /** Seeds the world's own choices (spawn failures, hook outcomes, how a signalled process ends). */
  readonly seed: number;
}

export interface WorldOutcome {
  /** Every broken promise, in the order found; empty is the pass. */
  readonly violations: string[];
  /** "at event → effects", one line per decision. */
  readonly trace: string[];
  readonly exitCode: number | undefined;
  /** Spawns during teardown: sidecars restarted because they exited before their turn to stop. */
  readonly teardownRestarts: number;
}

interface Pending {
  readonly key: string;
  event: LifecycleEventBody;
  /** The world answers by then at the latest (SIGKILL: at once; a hook: by its timeout); undefined: whenever. */
  dueBy: number | undefined;
}

/** Bounds the calm phase: a run that has not finished after this many steps never will. */
const MAX_SETTLE_STEPS = 5_000;
export const SIGNALS_FROM_OUTSIDE: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR1', 'SIGQUIT'];

export function runWorld(input: WorldInput): WorldOutcome {
  const { plan } = input;
  const graph = createProcessGraph(plan);
  const context: DecideContext = { graph, graceMs: plan.graceMs, hasDrain: plan.drain !== undefined, signalRewrites: plan.rewrite };
  const random = createRandom(input.seed);
  const violations: string[] = [];
  const trace: string[] = [];
  let state: LifecycleState = createInitialState(plan);
  let now = 0;
  /** Calm: no more outside events; spawns succeed and hooks pass, so the run can only move towards its end. */
  let calm = false;

  // The world's side: what is alive and what it owes the supervisor.
  const live = new Set<string>();
  const spawning = new Set<string>();
  const pending: Pending[] = [];
  const timers = new Map<string, { timer: TimerKey; due: number }>();
  const watches = new Set<string>();
  const lookingFor = new Set<string>();
  const lastExit = new Map<string, ExitStatus>();
  /** Processes whose current run was sent SIGKILL. */
  const killed = new Set<string>();
  /** A second stop signal came during teardown, or the kill timer fired: everything must have been sent SIGKILL since. */
  let killAll = false;
  /** Processes whose last run's group is being swept: none may run again before it is done. */
  const sweeping = new Set<string>();

  // The supervisor's promises, checked as it goes.
  let finished: { code: number; at: number } | undefined;
  let graceTimers = 0;
  let teardownAt: number | undefined;
  let trigger: { event: LifecycleEventBody; before: LifecycleState } | undefined;

  let teardownLines = 0;
  /** Processes told to stop in teardown (a stop signal, a preStop, the budget's SIGTERM or SIGKILL): none may run again. */
  const toldToStop = new Set<string>();
  /** The grace timer fired or a second stop signal came: nothing may start again. */
  let budgetOver = false;
  let teardownRestarts = 0;
  const isWorldAlive = (name: string) => live.has(name) || spawning.has(name);
  const owe = (key: string, event: LifecycleEventBody, dueBy: number | undefined) => pending.push({ key, event, dueBy });
  const owed = (key: string) => pending.find((item) => item.key === key);

  function send(event: LifecycleEventBody): void {
    if (event.type === 'spawned') {
      spawning.delete(event.name);
      live.add(event.name);
      killed.delete(event.name);
    }
    if (event.type === 'exited') {
      spawning.delete(event.name);
      live.delete(event.name);
      killed.delete(event.name);
      lastExit.set(event.name, event.status);
    }
    if (event.type === 'external-found') lookingFor.delete(event.name);
    if (event.type === 'group-swept') sweeping.delete(event.name);
    const before = state;
    const decision = decide(context, before, { ...event, at: now });
    state = decision.state;
    trace.push(`${now} ${describeEvent(event)} → ${decision.effects.map(describeEffect).join(', ') || '-'}`);
    checkLines(event, decision.effects, isTearingDown(before));
    if (event.type === 'timer' && event.timer.kind === 'grace' && before.phase === 'stopping') budgetOver = true;
    if (event.type === 'signal' && before.phase === 'stopping' && state.stopSignalsReceived >= 2) budgetOver = true;
    // Silence after the exit means nothing done: a late exit or signal is still told in the log.
    const acting = decision.effects.filter((effect) => effect.type !== 'log');
    if (finished !== undefined && acting.length > 0) violations.push(`effects after the exit: ${describeEvent(event)}`);
    if (trigger === undefined && isTearingDown(state) && !isTearingDown(before)) trigger = { event, before };
    for (const [index, effect] of acting.entries()) {
      if (finished !== undefined && index > 0) violations.push(`${describeEffect(effect)} after finish in the same decision`);
      perform(effect);
    }
    if (state.phase === 'stopping' && state.stopSignalsReceived >= 2) killAll = true;
    if (event.type === 'timer' && event.timer.kind === 'kill' && state.phase === 'stopping') killAll = true;
    if (killAll && finished === undefined) {
      const spared = [...live].filter((name) => !killed.has(name));
      if (spared.length > 0) violations.push(`${spared.join(', ')} ran on without SIGKILL after ${describeEvent(event)}`);
    }
  }

  function perform(effect: Effect): void {
    switch (effect.type) {
      case 'spawn':
        if (isTearingDown(state)) checkTeardownRestart(effect.name);
        if (isWorldAlive(effect.name)) violations.push(`spawned ${effect.name} while its last run is alive`);
        if (sweeping.has(effect.name)) violations.push(`spawned ${effect.name} before its last run's group was swept`);
        spawning.add(effect.name);
        owe(
          `spawn:${effect.name}`,
          !calm && random() < 0.03
            ? { type: 'exited', name: effect.name, status: { kind: 'spawn-failed', code: 127, reason: 'not found' } }
            : { type: 'spawned', name: effect.name },
          now,
        );
        return;
      case 'start-watch':
        watches.add(`${effect.watch}:${effect.name}`);
        return;
      case 'stop-watch':
        watches.delete(`${effect.watch}:${effect.name}`);
        return;
      case 'run-hook': {
        if (effect.hook === 'preStop' && isTearingDown(state)) toldToStop.add(effect.name);
        const spec = graph.spec(effect.name);
        const timeoutMs = spec[effect.hook]?.timeoutMs ?? 0;
        const ok = calm || random() < 0.8;
        owe(`hook:${effect.hook}:${effect.name}`, { type: 'hook-done', name: effect.name, hook: effect.hook, ok }, now + timeoutMs);
        return;
      }
      case 'cancel-hook': {
        // The runner aborts the hook; its outcome (a failure) still comes back.
        const hook = owed(`hook:${effect.hook}:${effect.name}`);
        if (hook !== undefined) {
          hook.event = { type: 'hook-done', name: effect.name, hook: effect.hook, ok: false };
          hook.dueBy = now;
        }
        return;
      }
      case 'run-drain': {
        const drain = plan.drain;
        owe('drain', { type: 'drain-done' }, now + (drain?.kind === 'delay' ? drain.ms : (drain?.hook.timeoutMs ?? 0)));
        return;
      }
      case 'cancel-drain': {
        const drain = owed('drain');
        if (drain !== undefined) drain.dueBy = now;
        return;
      }
      case 'signal':
        if (isTearingDown(state) && ['stop', 'expire', 'kill'].includes(effect.purpose)) toldToStop.add(effect.name);
        checkStopOrder(effect.name, effect.purpose === 'stop' ? 'stop' : undefined);
        return deliverSignal(effect.name, effect.signal);
      case 'sweep-group':
        sweeping.add(effect.name);
        // What the last run left is gone within the sweep's bounds (SIGKILL one second after its grace).
        owe(`sweep:${effect.name}`, { type: 'group-swept', name: effect.name }, now + effect.graceMs + 1_000);
        return;
      case 'start-timer':
        if (effect.timer.kind === 'grace') {
          graceTimers += 1;
          teardownAt = now;
          if (graceTimers > 1) violations.push('a second grace budget was started');
        }
        timers.set(timerId(effect.timer), { timer: effect.timer, due: now + effect.ms });
        return;
      case 'cancel-timer':
        timers.delete(timerId(effect.timer));
        return;
      case 'log':
      // This world sends no control requests, so no reply is owed to anyone.
      case 'control-reply':
        return;
      case 'watch-external':
        lookingFor.add(effect.name);
        return;
      case 'stop-external':
        lookingFor.delete(effect.name);
        if (!state.graceExpired) checkStopOrder(effect.name, 'stop');
        owe(`external-stop:${effect.name}`, { type: 'external-stopped', name: effect.name, outcome: 'stopped' }, now + effect.budgetMs);
        return;
      case 'kill-external': {
        const stop = owed(`external-stop:${effect.name}`);
        if (stop !== undefined) stop.dueBy = now;
        return;
      }
      case 'finish':
        finished = { code: effect.exitCode, at: now };
        checkFinish(effect.exitCode);
        return;
      default:
        return assertNeverEffect(effect);
    }
  }

  /** A process hears the signal: SIGKILL ends it at once; others end it unless it ignores them. */
  function deliverSignal(name: string, signal: NodeJS.Signals): void {
    if (!live.has(name)) return; // not yet spawned, or already gone: the runner has no child to signal
    const exit = owed(`exit:${name}`);
    if (signal === 'SIGKILL') {
      killed.add(name);
      if (exit !== undefined) exit.dueBy = now;
      else owe(`exit:${name}`, { type: 'exited', name, status: { kind: 'signaled', signal } }, now);
      return;
    }
    if (exit !== undefined || input.ignoresTerm.has(name)) return;
    const forwarded = !['SIGTERM', 'SIGINT', 'SIGQUIT'].includes(signal);
    if (forwarded && random() < 0.7) return; // most processes live on after a SIGHUP or SIGUSR1
    const endings: ExitStatus[] = [
      { kind: 'signaled', signal },
      { kind: 'exited', code: 0 },
      { kind: 'exited', code: 143 },
      { kind: 'exited', code: 1 },
    ];
    owe(`exit:${name}`, { type: 'exited', name, status: endings[Math.floor(random() * endings.length)] as ExitStatus }, undefined);
  }

  /**
   * In teardown only a sidecar that exited before its turn to stop runs again:
   * never one already told to stop, never after the budget ran out, and only
   * while the drain runs or something that waits for it is still alive.
   */
  function checkTeardownRestart(name: string): void {
    teardownRestarts += 1;
    const spec = graph.spec(name);
    if (spec.role !== 'sidecar') violations.push(`spawned ${spec.role} ${name} during teardown`);
    if (toldToStop.has(name)) violations.push(`spawned ${name} during teardown after it was told to stop`);
    if (budgetOver) violations.push(`spawned ${name} after the grace budget ran out`);
    // An external is up from its turn in startup until its stop ends: the reducer's own account of it is all there is.
    const isUp = (other: string) =>
      graph.spec(other).role === 'external' ? isAlive(state.procs.get(other) ?? { status: 'pending' }) : isWorldAlive(other);
    if (owed('drain') === undefined && !dependentsOf(name).some(isUp))
      violations.push(`spawned ${name} during teardown although its turn to stop had come`);
  }

  /**
   * In teardown a process is stopped only once everything that depends on it is
   * down, the drain is over and its own preStop has ended.
   */
  function checkStopOrder(name: string, purpose: 'stop' | undefined): void {
    if (purpose !== 'stop' || !isTearingDown(state)) return;
    if (owed('drain') !== undefined) violations.push(`stopped ${name} while the drain ran`);
    if (owed(`hook:preStop:${name}`) !== undefined) violations.push(`stopped ${name} while its preStop ran`);
    const up = dependentsOf(name).filter(isWorldAlive);
    if (up.length > 0) violations.push(`stopped ${name} while its dependents ${up.join(', ')} were alive`);
  }

  /** Every process that waits for `name`, directly or through others. */
  function dependentsOf(name: string): string[] {
    const seen = new Set<string>();
    const stack = graph.directDependentsOf(name).map((spec) => spec.name);
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...graph.directDependentsOf(next).map((spec) => spec.name));
    }
    return [...seen];
  }

  /** The log tells every exit, and why teardown began, once, before the finish. */
  function checkLines(event: LifecycleEventBody, effects: readonly Effect[], tearingDown: boolean): void {
    const lines = effects.flatMap((effect) => (effect.type === 'log' ? [effect.line] : []));
    teardownLines += lines.filter((line) => line.kind === 'teardown').length;
    // A restart in teardown says why: it exited before its turn to stop; one before teardown says nothing of it.
    for (const line of lines) {
      if (line.kind === 'restart-scheduled' && (line.duringTeardown === true) !== tearingDown)
        violations.push(`the restart of ${line.name} ${tearingDown ? 'did not say' : 'said'} it happens during teardown`);
    }
    if (event.type !== 'exited' || event.status.kind === 'spawn-failed') return;
    const told = lines.findIndex((line) => line.kind === 'exited' && line.name === event.name);
    if (told < 0) violations.push(`the exit of ${event.name} went untold`);
    // An exit that ends the pod is told before the line that says teardown began because of it.
    const teardown = lines.findIndex((line) => line.kind === 'teardown');
    if (teardown >= 0 && teardown < told) violations.push(`teardown was told before the exit of ${event.name} that began it`);
  }

  function checkFinish(code: number): void {
    if (teardownLines !== 1) violations.push(`finished after ${teardownLines} teardown lines; one says why`);
    const running = [...live, ...spawning];
    if (running.length > 0) violations.push(`finished while ${running.join(', ')} still ran`);
    const stopping = pending.filter((item) => item.key.startsWith('external-stop:')).map((item) => item.key);
    if (stopping.length > 0) violations.push(`finished while ${stopping.join(', ')} was still under way`);
    if (graceTimers !== 1) violations.push(`finished after ${graceTimers} grace budgets`);
    if (teardownAt !== undefined && now > teardownAt + plan.graceMs + KILL_AFTER_GRACE_MS)
      violations.push(`finished at ${now}, past the budget that began at ${teardownAt}`);
    const expected = expectedExitCode();
    if (code !== expected) violations.push(`exited ${code}; the rule says ${expected}`);
  }

  /**
   * The exit code, from what began teardown: the app's code whenever the app
   * ran (successCodes count as 0), the failing step's or sidecar's otherwise,
   * 69 for a fatal sidecar, 128+N for a signal before the app ran.
   */
  function expectedExitCode(): number | string {
    if (trigger === undefined) return 'no teardown';
    const { event, before } = trigger;
    const app = graph.app;
    const appCode = (status: ExitStatus) => {
      const code = shellCode(status);
      return app.successCodes.includes(code) ? 0 : code;
    };
    switch (event.type) {
      case 'signal': {
        const appExit = lastExit.get(app.name);
        return appExit === undefined ? 128 + (constants.signals[event.signal] ?? 0) : appCode(appExit);
      }
      case 'exited': {
        const spec = graph.spec(event.name);
        if (spec.role === 'app') return appCode(event.status);
        if (spec.role === 'init') return shellCode(event.status);
        const proc = before.procs.get(event.name);
        const started = proc !== undefined && proc.status !== 'pending' && proc.status !== 'skipped' && proc.started;
        if (started && spec.fatal) return 69;
        const code = shellCode(event.status);
        return code === 0 ? 1 : code;
      }
      case 'timer':
        return 1; // a readiness deadline: the sidecar or external never became ready
      default:
        return `teardown began on ${describeEvent(event)}`;
    }
  }

  /** What can happen next: answers the world owes, outside events, time passing. */
  function choices(step: WorldStep): (() => void)[] {
    // Answers and time count three times: most of what happens is the world doing what it was asked.
    const next: (() => void)[] = pending.flatMap((item) => Array<() => void>(3).fill(() => answer(item)));
    next.push(() => send({ type: 'signal', signal: step.signal }));
    for (const name of live) {
      if (owed(`exit:${name}`) === undefined) next.push(() => send({ type: 'exited', name, status: step.status }));
    }
    for (const watch of watches) {
      const [kind, name = ''] = watch.split(':');
      if (kind === 'readiness') next.push(() => send({ type: 'readiness', name, ready: step.flag }));
      else next.push(() => send({ type: 'liveness-failed', name, reason: 'timed out' }));
    }
    for (const name of lookingFor) next.push(() => send({ type: 'external-found', name }));
    // A late verdict of a probe loop that was just stopped, for any process.
    const stale = plan.processes[step.pick % plan.processes.length] as ProcessSpec;
    next.push(() => send({ type: 'readiness', name: stale.name, ready: step.flag }));
    next.push(...Array<() => void>(3).fill(() => passTime(step.ms)));
    return next;
  }

  function answer(item: Pending): void {
    pending.splice(pending.indexOf(item), 1);
    send(item.event);
  }

  /** Time moves on by `ms`, or to the first thing due before that (which then happens). */
  function passTime(ms: number): void {
    const due = firstDue();
    if (due === undefined || due.at > now + ms) {
      now += ms;
      return;
    }
    now = Math.max(now, due.at);
    due.run();
  }

  /** What must happen first as time passes: an answer due (SIGKILL's exit, a hook's timeout) before a timer. */
  function firstDue(): { at: number; run: () => void } | undefined {
    let first: { at: number; run: () => void } | undefined;
    for (const item of pending) {
      if (item.dueBy !== undefined && (first === undefined || item.dueBy < first.at)) first = { at: item.dueBy, run: () => answer(item) };
    }
    for (const [id, { timer, due }] of timers) {
      if (first === undefined || due < first.at)
        first = {
          at: due,
          run: () => {
            timers.delete(id);
            send({ type: 'timer', timer });
          },
        };
    }
    return first;
  }

  send({ type: 'boot' });
  for (const step of input.steps) {
    const next = choices(step);
    (next[step.pick % next.length] as () => void)();
  }
  // Calm: the world answers what it owes and time passes; if the run is still up, a SIGTERM asks it to end.
  calm = true;
  let askedToStop = false;
  for (let settle = 0; finished === undefined && settle < MAX_SETTLE_STEPS; settle += 1) {
    const answerNow = pending.find((item) => item.dueBy !== undefined && item.dueBy <= now) ?? pending[0];
    if (answerNow !== undefined) answer(answerNow);
    else if (firstDue() !== undefined) passTime(Number.POSITIVE_INFINITY);
    else if (!askedToStop) {
      askedToStop = true;
      send({ type: 'signal', signal: 'SIGTERM' });
    } else break;
  }
  if (finished === undefined) violations.push('never finished');
  return { violations, trace, exitCode: finished?.code, teardownRestarts };
}

function isTearingDown(state: LifecycleState): boolean {
  return state.phase === 'stopping' || state.phase === 'done';
}

function shellCode(status: ExitStatus): number {
  return status.kind === 'signaled' ? 128 + (constants.signals[status.signal] ?? 0) : status.code;
}

function assertNeverEffect(effect: never): never {
  throw new Error(`the world model does not know the effect ${JSON.stringify(effect)}`);
}

import { isStopSignal } from '../plan/signal-sets.ts';
import { assertNever } from '../plan/assert-never.ts';
import type { Decision, DecideContext } from './draft.ts';
import { createDraft } from './draft.ts';
import type { Draft } from './draft.ts';
import type { LifecycleEvent, TimerKey } from './events.ts';
import { handleControl, handleControlPreStopDone } from './control.ts';
import { handleExited } from './exits.ts';
import { handleExternalDeadline, handleExternalFound, handleExternalStopped } from './externals.ts';
import {
  advanceStartup,
  handleLivenessFailed,
  handlePostStartDone,
  handleReadiness,
  handleGroupSwept,
  handleRestartTimer,
  handleSpawned,
  isDeadlineMissed,
} from './startup.ts';
import type { LifecycleState, ProcState } from './state.ts';
import {
  advanceTeardown,
  beginStop,
  expireGrace,
  handleDrainDone,
  handlePreStopDone,
  handleProcessGraceOver,
  killEverything,
  startPreStopOfLateRun,
} from './teardown.ts';

export type { Decision, DecideContext } from './draft.ts';
export { KILL_AFTER_GRACE_MS } from './teardown.ts';

/**
 * The whole lifecycle as one pure function: given the state and one event,
 * the next state and what to do. No I/O, no clocks: the runner (supervise.ts)
 * performs the effects and feeds their outcomes back as events. This is the
 * table of contents; the steps live in startup.ts (spawn, readiness,
 * postStart, liveness), exits.ts (an exit, and whether it restarts:
 * restart-policy.ts), externals.ts (found, stopped, its deadline), control.ts
 * (`sidecar-init ctl`'s commands), teardown.ts (drain, preStop, stop signals,
 * the grace budget) and teardown-restarts.ts (a sidecar that exits before its
 * turn to stop). They share state.ts (each status one union member), events.ts,
 * draft.ts (the state being changed and the effects asked for) and exit-code.ts;
 * announcement.ts is what --announce writes of the state.
 */
export function decide(context: DecideContext, state: LifecycleState, event: LifecycleEvent): Decision {
  const draft = createDraft(state, event.at);
  // Spawn failures have their line where the spawn failed, with the reason.
  if (event.type === 'exited' && event.status.kind !== 'spawn-failed')
    draft.effects.push({ type: 'log', line: { kind: 'exited', name: event.name, status: event.status } });
  // Once everything is down only stop signals still count: a second one cuts the final sweep short.
  if (state.phase === 'done') {
    if (event.type === 'signal') countSignal(draft, event.signal, event.forwarded === true, event.count);
    if (event.type === 'control')
      draft.effects.push({ type: 'control-reply', id: event.id, ok: false, message: 'sidecar-init is exiting' });
    return draft.finish();
  }
  switch (event.type) {
    case 'boot':
      break;
    case 'spawned': {
      const confirmed = draft.get(event.name).status === 'spawning';
      handleSpawned(context, draft, event.name);
      if (confirmed) startPreStopOfLateRun(context, draft, event.name);
      break;
    }
    case 'exited':
      handleExited(context, draft, event.name, event.status);
      break;
    case 'readiness':
      handleReadiness(context, draft, event.name, event.ready);
      break;
    case 'liveness-failed':
      handleLivenessFailed(context, draft, event.name);
      break;
    case 'hook-done':
      if (event.hook === 'postStart') handlePostStartDone(context, draft, event.name, event.ok);
      else {
        handlePreStopDone(draft, event.name);
        handleControlPreStopDone(context, draft, event.name);
      }
      break;
    case 'drain-done':
      handleDrainDone(context, draft);
      break;
    case 'signal':
      handleSignal(context, draft, event.signal, event.forwarded === true, event.count);
      break;
    case 'timer':
      handleTimer(context, draft, event.timer);
      break;
    case 'group-swept':
      handleGroupSwept(draft, event.name);
      break;
    case 'external-found':
      handleExternalFound(draft, event.name);
      break;
    case 'external-stopped':
      handleExternalStopped(draft, event.name, event.outcome);
      break;
    case 'control':
      handleControl(context, draft, event.id, event.command);
      break;
    case 'until-reached':
      // Like a stop signal, but the end this container was waiting for: exit 0 (exit-code.ts).
      if (draft.phase === 'starting' || draft.phase === 'running')
        beginStop(context, draft, { kind: 'until', file: event.file, state: event.state });
      break;
    default:
      assertNever(event);
  }
  advanceStartup(context, draft);
  advanceTeardown(context, draft);
  return draft.finish();
}

function handleSignal(context: DecideContext, draft: Draft, signal: NodeJS.Signals, forwarded: boolean, count?: number): void {
  countSignal(draft, signal, forwarded, count);
  if (isStopSignal(signal)) {
    if (draft.phase === 'starting' || draft.phase === 'running') beginStop(context, draft, { kind: 'signal', signal });
    // A second stop signal means "now": skip what is left of the grace.
    else if (draft.phase === 'stopping' && draft.stopSignalsReceived >= 2) killEverything(context, draft);
    return;
  }
  const route = forwarded ? undefined : forwardRoute(context, draft.get, signal);
  if (route !== undefined) draft.effects.push({ type: 'signal', name: route.name, signal: route.signal, purpose: 'forward' });
}

/**
 * Counts a stop signal, and says what a signal means: a second stop signal
 * cuts every budget short; a forwarded one has its line already, written by
 * the runner in counts once the app had it (a line of its own here would cost
 * every forward CPU time the app then waits for on a busy node;
 * bench/signal-forward.ts).
 */
function countSignal(draft: Draft, signal: NodeJS.Signals, forwarded: boolean, count?: number): void {
  if (isStopSignal(signal)) draft.stopSignalsReceived += 1;
  if (isStopSignal(signal) && draft.stopSignalsReceived >= 2)
    draft.effects.push({ type: 'log', line: { kind: 'second-stop-signal', signal, leftovers: draft.phase === 'done' } });
  else if (!forwarded)
    draft.effects.push({
      type: 'log',
      line: count === undefined ? { kind: 'signal-received', signal } : { kind: 'signal-received', signal, count },
    });
}

/**
 * Where a signal that does not stop the pod goes: the app, as itself or as
 * its rewrite, while the app runs or stops; nowhere before it starts, after it
 * exits, or when rewritten to none. The runner asks this too, as the signal
 * arrives, so that the app gets it before any decision or log line is made.
 */
export function forwardRoute(
  context: DecideContext,
  procOf: (name: string) => ProcState,
  signal: NodeJS.Signals,
): { readonly name: string; readonly signal: NodeJS.Signals } | undefined {
  if (isStopSignal(signal)) return undefined;
  const app = context.graph.app.name;
  const { status } = procOf(app);
  if (status !== 'running' && status !== 'stopping') return undefined;
  const rewritten = context.signalRewrites[signal];
  if (rewritten === null) return undefined;
  return { name: app, signal: rewritten ?? signal };
}

/** The budget a second stop signal cuts short: during teardown, or in the final sweep once everything is down. */
export function isHurried(state: LifecycleState): boolean {
  return state.stopSignalsReceived >= 2 && (state.phase === 'stopping' || state.phase === 'done');
}

function handleTimer(context: DecideContext, draft: Draft, timer: TimerKey): void {
  switch (timer.kind) {
    case 'grace':
      if (draft.phase === 'stopping') expireGrace(context, draft);
      return;
    case 'kill':
      if (draft.phase === 'stopping') killEverything(context, draft);
      return;
    case 'deadline':
      if (isDeadlineMissed(draft, timer.name) && context.graph.spec(timer.name).role === 'external') {
        const reason = handleExternalDeadline(draft, context.graph.spec(timer.name));
        if (reason !== undefined) beginStop(context, draft, { kind: 'external-failed', name: timer.name, reason });
      } else if (isDeadlineMissed(draft, timer.name)) {
        const deadlineMs = context.graph.spec(timer.name).readiness?.deadlineMs;
        const reason = `not ready within its ${deadlineMs}ms deadline`;
        beginStop(context, draft, { kind: 'sidecar-failed', name: timer.name, status: undefined, reason });
      }
      return;
    case 'restart':
      return handleRestartTimer(draft, timer.name);
    case 'process-grace':
      return handleProcessGraceOver(draft, timer.name);
    default:
      return assertNever(timer);
  }
}

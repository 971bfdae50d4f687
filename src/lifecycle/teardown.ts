import type { ProcessSpec } from '../plan/plan.ts';
import type { DecideContext, Draft } from './draft.ts';
import { decideExitCode, withExternalsLeftRunning } from './exit-code.ts';
import { hurryExternal, stopExternalInTurn } from './externals.ts';
import { stopWatches } from './startup.ts';
import type { StopReason } from './state.ts';
import { hasStarted, isAlive } from './state.ts';
import { cancelRestart, isRestartKeptAtTeardown } from './teardown-restarts.ts';

/** After the grace budget, what is still alive gets SIGTERM, then SIGKILL this much later. */
export const KILL_AFTER_GRACE_MS = 2_000;

/**
 * Teardown begins, for any reason: the budget starts, nothing new starts, and on
 * termination the drain runs first; then every preStop starts at once.
 */
export function beginStop(context: DecideContext, draft: Draft, reason: StopReason): void {
  // Said whatever follows, even when nothing is left to stop, so no exit goes unexplained.
  draft.effects.push({ type: 'log', line: { kind: 'teardown', reason, appRunning: draft.phase === 'running' } });
  draft.phase = 'stopping';
  draft.stopReason = reason;
  draft.teardownStartedAt = draft.at;
  draft.effects.push({ type: 'start-timer', timer: { kind: 'grace' }, ms: context.graceMs });
  const drains = reason.kind === 'signal' && context.hasDrain;
  for (const spec of context.graph.order) {
    const proc = draft.get(spec.name);
    if (proc.status === 'pending') draft.put(spec.name, { status: 'skipped' });
    // A sidecar waiting to restart is still needed until its turn to stop (advanceTeardown cancels it then).
    if (proc.status === 'backoff' && !isRestartKeptAtTeardown(spec, drains)) cancelRestart(draft, spec.name);
    if (!hasStarted(proc) && spec.readiness !== undefined)
      draft.effects.push({ type: 'cancel-timer', timer: { kind: 'deadline', name: spec.name } });
    if (isAlive(proc)) draft.effects.push(...stopWatches(spec));
    if (proc.status === 'running' && !proc.postStartDone && spec.postStart !== undefined) {
      draft.effects.push({ type: 'cancel-hook', name: spec.name, hook: 'postStart' });
    }
  }
  if (drains) {
    draft.draining = true;
    draft.effects.push({ type: 'run-drain' });
    return;
  }
  startPreStops(context, draft);
}

export function handleDrainDone(context: DecideContext, draft: Draft): void {
  if (!draft.draining) return;
  draft.draining = false;
  if (!draft.graceExpired) startPreStops(context, draft);
}

export function handlePreStopDone(draft: Draft, name: string): void {
  draft.preStopsRunning.delete(name);
}

/**
 * Stops each process whose dependents are all down and whose preStop is over,
 * and finishes once nothing is alive. With the default chain that is strict
 * reverse start order, one process at a time.
 */
export function advanceTeardown(context: DecideContext, draft: Draft): void {
  if (draft.phase !== 'stopping') return;
  if (draft.graceExpired) killLateArrivals(context, draft);
  else if (!draft.draining) {
    // An external left alone in its turn is down at once, which may be the turn of what it waited for: one more pass.
    while (stopThoseWhoseTurnCame(context, draft));
  }
  const anyAlive = context.graph.order.some((spec) => isAlive(draft.get(spec.name)));
  if (!anyAlive && draft.stopReason !== undefined) {
    // Everything went down during the drain: a sidecar waiting to restart has nobody left to serve.
    for (const spec of context.graph.order) cancelRestart(draft, spec.name);
    draft.phase = 'done';
    const app = context.graph.app;
    const exitCode = decideExitCode(draft.stopReason, draft.get(app.name), app);
    draft.effects.push({ type: 'finish', exitCode: withExternalsLeftRunning(exitCode, draft.externalsLeftRunning.size) });
  }
}

/**
 * One pass over the processes whose turn came: each running one is asked to
 * stop, a restart still in backoff is cancelled. Returns whether one went down
 * in the pass itself (an external left alone), so the turns are worth
 * computing again.
 */
function stopThoseWhoseTurnCame(context: DecideContext, draft: Draft): boolean {
  const heldBack = context.graph.heldBackBy((name) => isAlive(draft.get(name)));
  let wentDown = false;
  for (const spec of context.graph.order) {
    const proc = draft.get(spec.name);
    if (heldBack.has(spec.name)) continue;
    // Its turn came while it waited to restart: it stays down.
    if (proc.status === 'backoff') cancelRestart(draft, spec.name);
    if (proc.status !== 'running' || draft.preStopsRunning.has(spec.name)) continue;
    if (spec.role === 'external') stopExternalInTurn(context, draft, spec);
    else sendStop(context, draft, spec);
    if (!isAlive(draft.get(spec.name))) wentDown = true;
  }
  return wentDown;
}

/** The budget ran out: SIGTERM to everything alive, SIGKILL shortly after. */
export function expireGrace(context: DecideContext, draft: Draft): void {
  if (!draft.graceExpired) draft.effects.push({ type: 'log', line: { kind: 'grace-expired' } });
  endOrderlySteps(draft);
  for (const spec of context.graph.order) if (spec.role === 'external') hurryExternal(context, draft, spec, KILL_AFTER_GRACE_MS);
  signalAllAlive(context, draft, 'SIGTERM', 'expire');
  draft.effects.push({ type: 'start-timer', timer: { kind: 'kill' }, ms: KILL_AFTER_GRACE_MS });
}

/** A second SIGTERM/SIGINT during teardown, or the final kill timer: SIGKILL now. */
export function killEverything(context: DecideContext, draft: Draft): void {
  endOrderlySteps(draft);
  for (const spec of context.graph.order) if (spec.role === 'external') hurryExternal(context, draft, spec, 0);
  signalAllAlive(context, draft, 'SIGKILL', 'kill');
}

/**
 * A run confirmed only after the budget ran out (its spawn was under way when
 * the grace expired or a second stop signal came) was in no SIGTERM or SIGKILL
 * that went out then: it has no time left, so it is killed at once.
 */
function killLateArrivals(context: DecideContext, draft: Draft): void {
  for (const [name, proc] of draft.procs) {
    if (proc.status !== 'running' || context.graph.spec(name).role === 'external') continue;
    markStopping(draft, name);
    draft.effects.push({ type: 'signal', name, signal: 'SIGKILL', purpose: 'kill' });
  }
}

/** A process outlived its own grace after its stop signal. */
export function handleProcessGraceOver(draft: Draft, name: string): void {
  if (draft.get(name).status === 'stopping') draft.effects.push({ type: 'signal', name, signal: 'SIGKILL', purpose: 'kill' });
}

/**
 * Each process's stop begins with its preStop, all at once. One waiting to
 * restart stays down: its stop begins while it is down. One whose spawn is
 * under way gets its preStop once the spawn is confirmed (startPreStopOfLateRun).
 */
function startPreStops(context: DecideContext, draft: Draft): void {
  for (const spec of context.graph.order) {
    if (spec.preStop === undefined) continue;
    cancelRestart(draft, spec.name);
    if (draft.get(spec.name).status !== 'running') continue;
    draft.preStopsRunning.add(spec.name);
    draft.effects.push({ type: 'run-hook', name: spec.name, hook: 'preStop' });
  }
}

/**
 * A run confirmed during teardown, once preStops began: it was spawning when
 * they started (a restart during the drain, or a start under way as teardown
 * began), so its stop begins with its preStop now, as every other's did.
 */
export function startPreStopOfLateRun(context: DecideContext, draft: Draft, name: string): void {
  const spec = context.graph.spec(name);
  if (spec.preStop === undefined || draft.phase !== 'stopping' || draft.draining || draft.graceExpired) return;
  if (draft.get(name).status !== 'running' || draft.preStopsRunning.has(name)) return;
  draft.preStopsRunning.add(name);
  draft.effects.push({ type: 'run-hook', name, hook: 'preStop' });
}

function sendStop(context: DecideContext, draft: Draft, spec: ProcessSpec): void {
  markStopping(draft, spec.name);
  const signal = stopSignalFor(context, draft, spec);
  // A rewrite to `none` sends nothing: the app is left to end on its own within the budget.
  if (signal !== null) draft.effects.push({ type: 'signal', name: spec.name, signal, purpose: 'stop' });
  if (spec.graceMs !== undefined)
    draft.effects.push({ type: 'start-timer', timer: { kind: 'process-grace', name: spec.name }, ms: spec.graceMs });
}

/**
 * On termination the app hears the signal the supervisor received, rewritten if
 * a rewrite says so, or its own stopSignal when it has one; every other stop
 * uses the process's stopSignal, SIGTERM by default.
 */
function stopSignalFor(context: DecideContext, draft: Draft, spec: ProcessSpec): NodeJS.Signals | null {
  const reason = draft.stopReason;
  if (spec.role === 'app' && reason?.kind === 'signal') {
    const rewritten = context.signalRewrites[reason.signal];
    if (rewritten !== undefined) return rewritten;
    return spec.stopSignal ?? reason.signal;
  }
  return spec.stopSignal ?? 'SIGTERM';
}

function endOrderlySteps(draft: Draft): void {
  draft.graceExpired = true;
  // No more restarts: what is down stays down.
  for (const name of draft.procs.keys()) cancelRestart(draft, name);
  if (draft.draining) {
    draft.draining = false;
    draft.effects.push({ type: 'cancel-drain' });
  }
  for (const name of draft.procs.keys()) {
    if (!draft.preStopsRunning.delete(name)) continue;
    draft.effects.push({ type: 'cancel-hook', name, hook: 'preStop' });
  }
}

/** Externals are not signalled here: hurryExternal hands them to their stop executor. */
function signalAllAlive(context: DecideContext, draft: Draft, signal: NodeJS.Signals, purpose: 'expire' | 'kill'): void {
  for (const [name, proc] of draft.procs) {
    if (proc.status !== 'running' && proc.status !== 'stopping') continue;
    if (context.graph.spec(name).role === 'external') continue;
    markStopping(draft, name);
    draft.effects.push({ type: 'signal', name, signal, purpose });
  }
}

/** A running process is told to stop; one already stopping keeps what it knew (stopped as unhealthy, say). */
function markStopping(draft: Draft, name: string): void {
  const proc = draft.get(name);
  if (proc.status !== 'running') return;
  const { started, restarts, spawnedAt } = proc;
  draft.put(name, { status: 'stopping', started, restarts, spawnedAt, killedAsUnhealthy: false });
}

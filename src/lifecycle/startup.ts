import type { ProcessSpec } from '../plan/plan.ts';
import { isSuccess } from '../plan/exit-status.ts';
import { assertNever } from '../plan/assert-never.ts';
import type { DecideContext, Draft } from './draft.ts';
import { isExternalSatisfied, startExternal } from './externals.ts';
import type { BackoffProc, RunningProc } from './state.ts';
import { hasStarted } from './state.ts';

// Starting and keeping processes up: the startup sequence (by the dependency
// graph), readiness and postStart gating, liveness once up.

/** Spawns every pending entry whose dependencies are satisfied; nothing new once teardown began. */
export function advanceStartup(context: DecideContext, draft: Draft): void {
  if (draft.phase !== 'starting' && draft.phase !== 'running') return;
  for (const spec of context.graph.order) {
    if (draft.get(spec.name).status !== 'pending') continue;
    if (!spec.after.every((dependency) => isDependencySatisfied(context, draft, dependency))) continue;
    if (spec.role === 'external') {
      startExternal(draft, spec);
      continue;
    }
    draft.put(spec.name, { status: 'spawning', started: false, restarts: 0, spawnedBefore: false });
    draft.effects.push({ type: 'spawn', name: spec.name });
    if (spec.role === 'app') draft.phase = 'running';
  }
}

export function handleSpawned(context: DecideContext, draft: Draft, name: string): void {
  const before = draft.get(name);
  if (before.status !== 'spawning') return;
  const spec = context.graph.spec(name);
  draft.put(name, {
    status: 'running',
    started: before.started,
    restarts: before.restarts,
    spawnedAt: draft.at,
    up: false,
    ready: spec.readiness === undefined,
    postStartDone: spec.postStart === undefined,
  });
  if (draft.phase === 'stopping') return; // teardown stops it; nothing to gate any more
  if (spec.readiness !== undefined) {
    draft.effects.push({ type: 'start-watch', name, watch: 'readiness' });
    // The deadline covers every attempt until the first start, restarts included.
    if (!before.spawnedBefore)
      draft.effects.push({ type: 'start-timer', timer: { kind: 'deadline', name }, ms: spec.readiness.deadlineMs });
  }
  if (spec.postStart !== undefined) draft.effects.push({ type: 'run-hook', name, hook: 'postStart' });
  markUpIfReady(context, draft, name);
}

export function handleReadiness(context: DecideContext, draft: Draft, name: string, ready: boolean): void {
  const proc = draft.get(name);
  if (proc.status !== 'running') return;
  draft.put(name, { ...proc, ready });
  if (ready) markUpIfReady(context, draft, name);
}

export function handlePostStartDone(context: DecideContext, draft: Draft, name: string, ok: boolean): void {
  const proc = draft.get(name);
  if (proc.status !== 'running' || draft.phase === 'stopping') return;
  // As in Kubernetes, a failed postStart kills the process; its restart policy decides what follows.
  if (!ok) return stopUnhealthy(context, draft, proc, name);
  draft.put(name, { ...proc, postStartDone: true });
  markUpIfReady(context, draft, name);
}

export function handleLivenessFailed(context: DecideContext, draft: Draft, name: string): void {
  const proc = draft.get(name);
  if (proc.status === 'running' && proc.up && draft.phase !== 'stopping') stopUnhealthy(context, draft, proc, name);
}

/** The backoff delay is over: the next run starts, once the last one's process group is gone too. */
export function handleRestartTimer(draft: Draft, name: string): void {
  const proc = draft.get(name);
  // In teardown only a restart that is kept is still in backoff (teardown-restarts.ts).
  if (proc.status !== 'backoff') return;
  if (proc.groupGone) respawn(draft, name, proc);
  else draft.put(name, { ...proc, delayOver: true });
}

/** The last run's process group is gone: the next run starts, once the backoff delay is over too. */
export function handleGroupSwept(draft: Draft, name: string): void {
  const proc = draft.get(name);
  if (proc.status !== 'backoff') return;
  if (proc.delayOver) respawn(draft, name, proc);
  else draft.put(name, { ...proc, groupGone: true });
}

function respawn(draft: Draft, name: string, proc: BackoffProc): void {
  draft.put(name, { status: 'spawning', started: proc.started, restarts: proc.restarts, spawnedBefore: true });
  draft.effects.push({ type: 'spawn', name });
}

/** The readiness deadline passed before the sidecar ever started: startup fails (once everything is down, decide.ts asks nothing). */
export function isDeadlineMissed(draft: Draft, name: string): boolean {
  return !hasStarted(draft.get(name)) && draft.phase !== 'stopping';
}

/** A run is up once ready and past its postStart: it counts as started, and liveness begins. */
function markUpIfReady(context: DecideContext, draft: Draft, name: string): void {
  const proc = draft.get(name);
  if (proc.status !== 'running' || proc.up || !proc.ready || !proc.postStartDone) return;
  const spec = context.graph.spec(name);
  if (!proc.started && spec.readiness !== undefined) draft.effects.push({ type: 'cancel-timer', timer: { kind: 'deadline', name } });
  draft.put(name, { ...proc, up: true, started: true });
  if (spec.role === 'sidecar' || spec.role === 'external') draft.effects.push({ type: 'log', line: { kind: 'up', name } });
  if (spec.liveness !== undefined) draft.effects.push({ type: 'start-watch', name, watch: 'liveness' });
}

function stopUnhealthy(context: DecideContext, draft: Draft, proc: RunningProc, name: string): void {
  const spec = context.graph.spec(name);
  draft.put(name, {
    status: 'stopping',
    started: proc.started,
    restarts: proc.restarts,
    spawnedAt: proc.spawnedAt,
    killedAsUnhealthy: true,
  });
  draft.effects.push(
    ...stopWatches(spec),
    { type: 'signal', name, signal: spec.stopSignal ?? 'SIGTERM', purpose: 'unhealthy' },
    { type: 'start-timer', timer: { kind: 'process-grace', name }, ms: spec.graceMs ?? context.graceMs },
  );
}

/** Effects that end a process's probe loops (the runner ignores loops that are not running). */
export function stopWatches(spec: ProcessSpec): { type: 'stop-watch'; name: string; watch: 'readiness' | 'liveness' }[] {
  const watches: { type: 'stop-watch'; name: string; watch: 'readiness' | 'liveness' }[] = [];
  if (spec.readiness !== undefined) watches.push({ type: 'stop-watch', name: spec.name, watch: 'readiness' });
  if (spec.liveness !== undefined) watches.push({ type: 'stop-watch', name: spec.name, watch: 'liveness' });
  return watches;
}

function isDependencySatisfied(context: DecideContext, draft: Draft, name: string): boolean {
  const spec = context.graph.spec(name);
  const proc = draft.get(name);
  switch (spec.role) {
    case 'init':
      return proc.status === 'exited' && isSuccess(proc.exit);
    case 'sidecar':
      return hasStarted(proc);
    case 'external':
      return isExternalSatisfied(draft, name);
    case 'app':
      return false;
    default:
      return assertNever(spec.role);
  }
}

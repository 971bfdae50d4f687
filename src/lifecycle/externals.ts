import type { ProcessSpec } from '../plan/plan.ts';
import type { DecideContext, Draft } from './draft.ts';
import type { ExternalStopOutcome } from './events.ts';
import { decideExitCode } from './exit-code.ts';
import { graceLeftMs } from './grace-budget.ts';
import { hasStarted } from './state.ts';

// role: external, a process of another container. It keeps its place in the
// startup order and the after-graph like a sidecar, but nothing is spawned:
// in its turn sidecar-init starts looking for it (and probing it), it counts
// as started once ready, and at teardown, in its reverse turn, it is stopped
// through the stop executor, whose end comes back as 'external-stopped'.

/**
 * Its turn came: look for it and probe it; the deadline runs from now. Without
 * a probe of its own its readiness is its presence, and that probe reports
 * what it found: /proc is searched once per period, not twice.
 */
export function startExternal(draft: Draft, spec: ProcessSpec): void {
  draft.put(spec.name, {
    status: 'running',
    started: false,
    restarts: 0,
    spawnedAt: draft.at,
    up: false,
    ready: false,
    postStartDone: true,
  });
  // A presence probe (or an announced file's) finds it; any other probe needs a search of its own.
  const probe = spec.readiness?.probe.kind;
  if (probe !== 'process' && probe !== 'announced') draft.effects.push({ type: 'watch-external', name: spec.name });
  if (spec.readiness === undefined) return; // config always gives an external one
  draft.effects.push(
    { type: 'start-watch', name: spec.name, watch: 'readiness' },
    { type: 'start-timer', timer: { kind: 'deadline', name: spec.name }, ms: spec.readiness.deadlineMs },
  );
}

export function handleExternalFound(draft: Draft, name: string): void {
  draft.externalsFound.add(name);
}

/**
 * The deadline passed before it was ready. An optional external that never
 * appeared is skipped (its dependents go on) and undefined is returned;
 * otherwise the reason startup fails (teardown still stops what of it is there).
 */
export function handleExternalDeadline(draft: Draft, spec: ProcessSpec): string | undefined {
  const found = draft.externalsFound.has(spec.name);
  if (spec.external?.optional === true && !found) {
    draft.put(spec.name, { status: 'exited', started: false, restarts: 0, exit: { kind: 'exited', code: 0 } });
    draft.effects.push(
      { type: 'stop-watch', name: spec.name, watch: 'readiness' },
      { type: 'log', line: { kind: 'external-skipped', name: spec.name, why: 'absent' } },
    );
    return undefined;
  }
  const deadlineMs = spec.readiness?.deadlineMs;
  return found
    ? `found but not ready within its ${deadlineMs}ms deadline`
    : `no matching process appeared within its ${deadlineMs}ms deadline`;
}

/** An absent optional external counts as done for its dependents; otherwise it must have started. */
export function isExternalSatisfied(draft: Draft, name: string): boolean {
  const proc = draft.get(name);
  return hasStarted(proc) || proc.status === 'exited';
}

/**
 * Its reverse turn in teardown: stopped through the executor within what is
 * left of the budget, unless it is to be left alone (see keepReason).
 */
export function stopExternalInTurn(context: DecideContext, draft: Draft, spec: ProcessSpec): void {
  askToStop(context, draft, spec, graceLeftMs(context.graceMs, draft, draft.at));
}

/**
 * The budget is over or a second stop signal came: one not yet asked is
 * stopped at once (or left alone, as in its turn), one stopping is killed.
 */
export function hurryExternal(context: DecideContext, draft: Draft, spec: ProcessSpec, killAfterMs: number): void {
  const proc = draft.get(spec.name);
  if (proc.status === 'running') askToStop(context, draft, spec, killAfterMs);
  else if (proc.status === 'stopping' && killAfterMs === 0) draft.effects.push({ type: 'kill-external', name: spec.name });
}

/** The executor is done (the runner logged its outcome): the external is down for the lifecycle; one left running fails the run. */
export function handleExternalStopped(draft: Draft, name: string, outcome: ExternalStopOutcome): void {
  const proc = draft.get(name);
  if (proc.status !== 'stopping' && proc.status !== 'running') return;
  if (outcome === 'left-running') draft.externalsLeftRunning.add(name);
  draft.put(name, { status: 'exited', started: proc.started, restarts: 0, exit: { kind: 'exited', code: 0 } });
}

/** The one place that decides whether a running external is stopped or left alone, in its turn or hurried. */
function askToStop(context: DecideContext, draft: Draft, spec: ProcessSpec, budgetMs: number): void {
  const proc = draft.get(spec.name);
  if (proc.status !== 'running') return;
  const why = keepReason(context, draft, spec);
  if (why !== undefined) {
    draft.put(spec.name, { status: 'exited', started: proc.started, restarts: 0, exit: { kind: 'exited', code: 0 } });
    draft.effects.push({ type: 'log', line: { kind: 'external-skipped', name: spec.name, why } });
    return;
  }
  draft.put(spec.name, { status: 'stopping', started: proc.started, restarts: 0, spawnedAt: proc.spawnedAt, killedAsUnhealthy: false });
  draft.effects.push({ type: 'stop-external', name: spec.name, budgetMs });
}

/** Left alone: stop: none, or stopOnFailure: false when sidecar-init is about to exit non-zero. */
function keepReason(context: DecideContext, draft: Draft, spec: ProcessSpec): 'stop-none' | 'kept-on-failure' | undefined {
  const external = spec.external;
  if (external === undefined) return undefined;
  if (external.stop.kind === 'none') return 'stop-none';
  if (external.stopOnFailure || draft.stopReason === undefined) return undefined;
  const app = context.graph.app;
  return decideExitCode(draft.stopReason, draft.get(app.name), app) === 0 ? undefined : 'kept-on-failure';
}

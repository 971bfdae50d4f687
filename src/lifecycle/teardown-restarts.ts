import type { ProcessSpec } from '../plan/plan.ts';
import type { DecideContext, Draft } from './draft.ts';
import type { ProcState } from './state.ts';
import { isAlive } from './state.ts';

// A sidecar is still needed during teardown until its turn to stop comes: the
// app drains its last requests through it (a mesh proxy, cloud-sql-proxy). So
// a sidecar whose stop has not begun and that exits then is restarted under
// its own restart policy, as Kubernetes restarts native sidecars during pod
// termination (KEP-4438); its turn cancels a restart still in backoff. The
// grace budget running out or a second stop signal ends all of it at once
// (endOrderlySteps in teardown.ts). Only sidecars: the app and init steps are
// what teardown waits for, and externals belong to another container.

/**
 * Whether a process that just exited (it was `before`) is restarted although
 * teardown is under way: a sidecar not yet asked to stop (no stop signal, no
 * preStop started: preStops start when the drain ends) whose turn has not
 * come (the drain runs, or something alive still waits for it).
 */
export function isKeptUpInTeardown(context: DecideContext, draft: Draft, spec: ProcessSpec, before: ProcState): boolean {
  if (draft.phase !== 'stopping' || draft.graceExpired) return false;
  if (spec.role !== 'sidecar' || before.status !== 'running') return false;
  if (spec.preStop !== undefined && !draft.draining) return false;
  return draft.draining || context.graph.heldBackBy((name) => isAlive(draft.get(name))).has(spec.name);
}

/**
 * Whether a restart scheduled before teardown began goes on: only a
 * sidecar's, and only while its stop has not begun (its turn, checked at each
 * step by advanceTeardown, may still cancel it).
 */
export function isRestartKeptAtTeardown(spec: ProcessSpec, drains: boolean): boolean {
  return spec.role === 'sidecar' && (spec.preStop === undefined || drains);
}

/** Its turn to stop came (or the budget ran out) while it waited to restart: it stays down. */
export function cancelRestart(draft: Draft, name: string): void {
  const proc = draft.get(name);
  if (proc.status !== 'backoff') return;
  draft.put(name, { status: 'exited', started: proc.started, restarts: proc.restarts, exit: proc.exit });
  draft.effects.push({ type: 'cancel-timer', timer: { kind: 'restart', name } });
}

import type { ExitStatus } from '../plan/exit-status.ts';
import type { ProcessSpec } from '../plan/plan.ts';
import { isSuccess } from '../plan/exit-status.ts';
import { assertNever } from '../plan/assert-never.ts';
import type { DecideContext, Draft } from './draft.ts';
import { backoffDelayMs, isExhausted, leftoverGraceMs, restartsAfterRun, wantsRestart } from './restart-policy.ts';
import { stopWatches } from './startup.ts';
import { hasStarted, isAlive } from './state.ts';
import { beginStop } from './teardown.ts';
import { handleControlExit } from './control.ts';
import { isKeptUpInTeardown } from './teardown-restarts.ts';
import type { RunningProc, SpawningProc, StoppingProc } from './state.ts';

/**
 * A process exited: restart it under its policy, or decide what its end means
 * for the pod. During teardown an exit lets the teardown go on, but a sidecar
 * that exits before its turn to stop is restarted (teardown-restarts.ts).
 */
export function handleExited(context: DecideContext, draft: Draft, name: string, status: ExitStatus): void {
  const before = draft.get(name);
  // One exit per spawn: anything else is not about a run this state knows.
  if (!isAlive(before)) return;
  const spec = context.graph.spec(name);
  const exited = { status: 'exited', started: before.started, restarts: before.restarts, exit: status } as const;
  draft.put(name, exited);
  draft.effects.push(...stopWatches(spec));
  if (before.status === 'running' && !before.postStartDone && spec.postStart !== undefined)
    draft.effects.push({ type: 'cancel-hook', name, hook: 'postStart' });
  if (before.status === 'stopping') draft.effects.push({ type: 'cancel-timer', timer: { kind: 'process-grace', name } });
  // Once everything is down decide.ts hands no exit here.
  if (draft.phase === 'stopping') {
    if (isKeptUpInTeardown(context, draft, spec, before)) scheduleRestart(draft, spec, before, status, true);
    return;
  }
  // Stopped on request: restarted (after the sweep of its group) or held down, whatever its policy says.
  if (handleControlExit(draft, spec, before, exited)) return;
  if (scheduleRestart(draft, spec, before, status, false)) return;

  switch (spec.role) {
    case 'app':
      return beginStop(context, draft, { kind: 'app-exited', status });
    case 'init':
      if (!isSuccess(status)) beginStop(context, draft, { kind: 'init-failed', name, status });
      return;
    case 'sidecar':
      if (!hasStarted(before)) {
        const reason = status.kind === 'spawn-failed' ? status.reason : 'exited before it was ready';
        return beginStop(context, draft, { kind: 'sidecar-failed', name, status, reason });
      }
      // After it started, a sidecar that stays down disturbs nothing, unless it is fatal.
      if (spec.fatal) beginStop(context, draft, { kind: 'fatal-sidecar', name, status });
      return;
    case 'external':
      return; // never spawned, so it never exits as a child
    default:
      return assertNever(spec.role);
  }
}

/**
 * Puts the process in backoff when its restart policy wants another run and
 * maxRestarts allows one; returns whether it did. `duringTeardown`: the log
 * says it is restarted because it exited before its turn to stop.
 */
function scheduleRestart(
  draft: Draft,
  spec: ProcessSpec,
  before: SpawningProc | RunningProc | StoppingProc,
  status: ExitStatus,
  duringTeardown: boolean,
): boolean {
  const { name } = spec;
  // A spawn that failed never ran (and is never retried).
  const ranMs = before.status === 'spawning' ? 0 : draft.at - before.spawnedAt;
  const restarts = restartsAfterRun(spec.restart, before.restarts, ranMs);
  const killedAsUnhealthy = before.status === 'stopping' && before.killedAsUnhealthy;
  // A fatal sidecar without maxRestarts is not restarted: its first exit ends the pod.
  const restartable = !(spec.fatal && spec.restart.maxRestarts === undefined);
  if (restartable && wantsRestart(spec.restart, status, killedAsUnhealthy) && !isExhausted(spec.restart, restarts)) {
    const delayMs = backoffDelayMs(spec.restart, restarts);
    draft.put(name, {
      status: 'backoff',
      started: before.started,
      restarts: restarts + 1,
      exit: status,
      delayOver: false,
      groupGone: false,
    });
    draft.effects.push(
      {
        type: 'log',
        line: { kind: 'restart-scheduled', name, attempt: restarts + 1, delayMs, ...(duringTeardown ? { duringTeardown } : {}) },
      },
      { type: 'start-timer', timer: { kind: 'restart', name }, ms: delayMs },
      // The exit ended the run's leader only: what it forked and left behind is swept during the delay.
      { type: 'sweep-group', name, graceMs: leftoverGraceMs(spec) },
    );
    return true;
  }
  return false;
}

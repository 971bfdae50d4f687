import type { DecideContext } from './draft.ts';
import { decideExitCode } from './exit-code.ts';
import type { LifecycleState } from './state.ts';
import { isAlive } from './state.ts';
import type { Announcement } from '../plan/announced-state.ts';

// What `--announce FILE` tells other containers of the pod, derived from the
// lifecycle state alone, so it can never disagree with what sidecar-init does.
// Another sidecar-init reads it through `--until FILE` or an external
// `announced:FILE` (containers that cannot share a PID namespace).

/**
 * starting: the app is not running yet. ready: the app has been spawned. stopping:
 * teardown began and the app is still alive. exited: the app is down (or never
 * ran) and the exit code is decided; the rest of teardown (this container's
 * own sidecars) may still be under way, so a proxy in another container that
 * waits for it stops in parallel instead of waiting on us.
 */
export function announcementOf(context: DecideContext, state: LifecycleState): Announcement {
  const appSpec = context.graph.app;
  const app = state.procs.get(appSpec.name) ?? { status: 'pending' };
  if (state.phase === 'starting' || state.phase === 'running') return { state: app.status === 'running' ? 'ready' : 'starting' };
  if (isAlive(app) || state.stopReason === undefined) return { state: 'stopping' };
  return { state: 'exited', exitCode: decideExitCode(state.stopReason, app, appSpec) };
}

import { constants } from 'node:os';
import type { ProcessSelfApi } from './addon.ts';

// --parent-death-signal (tini's -p): for sidecar-init started by a parent that
// may die first (docker exec, a wrapper script), the kernel sends the signal
// when the parent exits (prctl PR_SET_PDEATHSIG), and sidecar-init handles it
// as any signal sent to it. The kernel sends nothing for a parent that died
// before the prctl, so the parent it has then is compared with the one it had
// when it started: when they differ, the parent is gone, and the signal is sent
// now, by sidecar-init to itself.

/**
 * sidecar-init's parent when it started: read when this module is evaluated,
 * with the bundle's first statements (main.ts imports it statically), so a
 * parent that dies while the config loads, before the prctl, is seen gone.
 */
const PARENT_AT_START = process.ppid;

/** What armParentDeathSignal did. */
export type ParentDeathWatch =
  /** Nothing: PID 1 has no parent in its PID namespace, and its end is the namespace's. */
  | { readonly kind: 'pid1' }
  /** Armed: the kernel sends the signal when `parent` exits. */
  | { readonly kind: 'armed'; readonly parent: number }
  /** Armed, but `parent` had already exited (sidecar-init's parent is now `adoptedBy`): the signal was sent now. */
  | { readonly kind: 'parent-gone'; readonly parent: number; readonly adoptedBy: number };

/**
 * Has the kernel send `signal` to sidecar-init when its parent exits; call it
 * once every listener is installed, since the signal may come at once (or is
 * sent here), and without one SIGTERM's default action would end sidecar-init
 * with nothing stopped.
 */
export function armParentDeathSignal(native: ProcessSelfApi, signal: NodeJS.Signals): ParentDeathWatch {
  if (process.pid === 1) return { kind: 'pid1' };
  native.setParentDeathSignal(constants.signals[signal]);
  // After the prctl: a parent that exits from now on sends the signal, so a parent still there now cannot be missed.
  const adoptedBy = process.ppid;
  if (adoptedBy === PARENT_AT_START) return { kind: 'armed', parent: PARENT_AT_START };
  process.kill(process.pid, signal);
  return { kind: 'parent-gone', parent: PARENT_AT_START, adoptedBy };
}

import type { ExitStatus } from '../process/exit-status.ts';

// Everything that can happen to the supervisor arrives as one of these, through
// one queue, in order: process exits, probe results, signals and timers.
export type LifecycleEvent =
  | { readonly type: 'boot' }
  | { readonly type: 'spawned'; readonly name: string }
  | { readonly type: 'exited'; readonly name: string; readonly status: ExitStatus }
  | { readonly type: 'ready'; readonly name: string }
  | { readonly type: 'not-ready'; readonly name: string; readonly reason: string }
  | { readonly type: 'signal'; readonly signal: NodeJS.Signals }
  | { readonly type: 'grace-expired' }
  | { readonly type: 'kill-timer' };

/**
 * Why a signal is sent: 'stop' is a process's orderly stop, 'forward' passes on
 * a signal the supervisor received, 'expire' and 'kill' end what outlived the grace.
 */
export type SignalPurpose = 'stop' | 'forward' | 'expire' | 'kill';

// What decide.ts asks the runner to do. Effects carry names, never PIDs: the
// runner owns the handles.
export type Effect =
  | { readonly type: 'spawn'; readonly name: string }
  | { readonly type: 'watch-readiness'; readonly name: string }
  | { readonly type: 'cancel-readiness'; readonly name: string }
  | { readonly type: 'signal'; readonly name: string; readonly signal: NodeJS.Signals; readonly purpose: SignalPurpose }
  | { readonly type: 'start-grace-timer'; readonly ms: number }
  | { readonly type: 'start-kill-timer'; readonly ms: number }
  | { readonly type: 'finish'; readonly exitCode: number };

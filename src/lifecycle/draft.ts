import type { Effect } from './events.ts';
import type { ProcessGraph } from './graph.ts';
import type { LifecycleState, Phase, ProcState, StopReason } from './state.ts';

/** What every decision step reads: the plan's graph and the pod-level budget. */
export interface DecideContext {
  readonly graph: ProcessGraph;
  readonly graceMs: number;
  /** Whether the plan has a drain step for termination. */
  readonly hasDrain: boolean;
  /** Signals rewritten before they reach the app; null drops one. */
  readonly signalRewrites: Readonly<Partial<Record<NodeJS.Signals, NodeJS.Signals | null>>>;
}

export interface Decision {
  readonly state: LifecycleState;
  readonly effects: readonly Effect[];
}

/**
 * The mutable working copy one decision builds: the steps in startup.ts,
 * exits.ts and teardown.ts change it and push effects, and finish() freezes it
 * into the next state. The previous state is never touched.
 */
export interface Draft {
  phase: Phase;
  stopReason: StopReason | undefined;
  stopSignalsReceived: number;
  draining: boolean;
  graceExpired: boolean;
  readonly procs: Map<string, ProcState>;
  readonly effects: Effect[];
  get(name: string): ProcState;
  set(name: string, change: Partial<ProcState>): void;
  finish(): Decision;
}

export function createDraft(state: LifecycleState): Draft {
  const procs = new Map(state.procs);
  const draft: Draft = {
    phase: state.phase,
    stopReason: state.stopReason,
    stopSignalsReceived: state.stopSignalsReceived,
    draining: state.draining,
    graceExpired: state.graceExpired,
    procs,
    effects: [],
    get(name) {
      const proc = procs.get(name);
      if (proc === undefined) throw new Error(`no process named ${name} in the lifecycle state`);
      return proc;
    },
    set(name, change) {
      procs.set(name, { ...draft.get(name), ...change });
    },
    finish: () => ({
      state: {
        phase: draft.phase,
        procs,
        stopReason: draft.stopReason,
        stopSignalsReceived: draft.stopSignalsReceived,
        draining: draft.draining,
        graceExpired: draft.graceExpired,
      },
      effects: draft.effects,
    }),
  };
  return draft;
}

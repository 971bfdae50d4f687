import type { Effect } from './events.ts';
import type { ProcessGraph } from '../plan/process-graph.ts';
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
  /** The time of the event being decided (ms on the runner's monotonic clock). */
  readonly at: number;
  phase: Phase;
  stopReason: StopReason | undefined;
  stopSignalsReceived: number;
  draining: boolean;
  graceExpired: boolean;
  teardownStartedAt: number | undefined;
  readonly preStopsRunning: Set<string>;
  readonly externalsFound: Set<string>;
  readonly externalsLeftRunning: Set<string>;
  readonly procs: ReadonlyMap<string, ProcState>;
  readonly effects: Effect[];
  get(name: string): ProcState;
  /** Replaces a process's state as a whole: each status has its own fields. */
  put(name: string, proc: ProcState): void;
  finish(): Decision;
}

export function createDraft(state: LifecycleState, at: number): Draft {
  const procs = new Map(state.procs);
  const draft: Draft = {
    at,
    phase: state.phase,
    stopReason: state.stopReason,
    stopSignalsReceived: state.stopSignalsReceived,
    draining: state.draining,
    graceExpired: state.graceExpired,
    teardownStartedAt: state.teardownStartedAt,
    preStopsRunning: new Set(state.preStopsRunning),
    externalsFound: new Set(state.externalsFound),
    externalsLeftRunning: new Set(state.externalsLeftRunning),
    procs,
    effects: [],
    get(name) {
      const proc = procs.get(name);
      if (proc === undefined) throw new Error(`no process named ${name} in the lifecycle state`);
      return proc;
    },
    put(name, proc) {
      draft.get(name);
      procs.set(name, proc);
    },
    finish: () => ({
      state: {
        phase: draft.phase,
        procs,
        stopReason: draft.stopReason,
        stopSignalsReceived: draft.stopSignalsReceived,
        draining: draft.draining,
        graceExpired: draft.graceExpired,
        teardownStartedAt: draft.teardownStartedAt,
        preStopsRunning: draft.preStopsRunning,
        externalsFound: draft.externalsFound,
        externalsLeftRunning: draft.externalsLeftRunning,
      },
      effects: draft.effects,
    }),
  };
  return draft;
}

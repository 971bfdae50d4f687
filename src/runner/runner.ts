import type { Plan } from '../plan/plan.ts';
import type { ProcessGraph } from '../plan/process-graph.ts';
import type { LifecycleEventBody } from '../lifecycle/events.ts';
import type { Child } from '../process/child.ts';
import type { LogMatcher } from '../probes/log-matcher.ts';
import type { ReadinessChannel } from '../probes/readiness-channel.ts';
import type { Aborts } from './aborts.ts';
import type { LifecycleLog } from './lifecycle-log.ts';
import type { SuperviseDeps } from './ports.ts';
import type { Timers } from './timers.ts';

// The runner's own handles, shared by supervise.ts and its effect handlers.
// Not a port: no edge sees it (ports.ts is all of src/runner/ an edge may import).

/**
 * What every effect handler shares: the plan, the world's handles (children,
 * log matchers, long-running work, timers) and the way back into the queue.
 * Effects carry names, never PIDs: the handles live here.
 */
export interface Runner {
  readonly plan: Plan;
  readonly graph: ProcessGraph;
  readonly deps: SuperviseDeps;
  readonly log: LifecycleLog;
  readonly aborts: Aborts;
  readonly timers: Timers;
  readonly children: Map<string, Child>;
  readonly logMatchers: Map<string, LogMatcher>;
  /** The latest readiness probe failure per process, for the line that says why startup failed. */
  readonly lastProbeFailures: Map<string, string>;
  /** The current run's notify socket or notification pipe, per process with such a readiness probe. */
  readonly channels: Map<string, ReadinessChannel>;
  /** Names of processes with output prefix are padded to this width, so their lines align. */
  readonly prefixWidth: number;
  dispatch(event: LifecycleEventBody): void;
}

import type { Logger } from 'pino';
import type { Announcer } from '../announce/announcer.ts';
import type { Announcement } from '../plan/announced-state.ts';
import type { AnnouncementSource } from '../announce/announcement-source.ts';
import type { ExternalMatch, ExternalSpec, Plan, ProbeSpec, ProcessSpec } from '../plan/plan.ts';
import type { FoundProcess, ProcessSearch } from '../externals/find-processes.ts';
import type { runDrain } from '../hooks/run-drain.ts';
import type { runHook } from '../hooks/run-hook.ts';
import type { Child, Spawner } from '../process/child.ts';
import type { SignalForwarder } from '../process/signal-forwarder.ts';
import type { createLogMatcher, LogMatcher } from '../probes/log-matcher.ts';
import type { openReadinessChannel } from '../probes/open-channel.ts';
import type { Probe } from '../probes/probe.ts';
import type { ReadinessChannel } from '../probes/readiness-channel.ts';
import type { watchLiveness } from '../probes/watch-liveness.ts';
import type { watchReadiness } from '../probes/watch-readiness.ts';
import type { Aborts } from './aborts.ts';
import type { ExternalStopOutcome, LifecycleEventBody } from '../lifecycle/events.ts';
import type { ProcessGraph } from '../plan/process-graph.ts';
import type { LifecycleLog } from './lifecycle-log.ts';
import type { Timers } from './timers.ts';

/** What the runner uses to probe processes; main.ts wires the implementations. */
export interface ProbeKit {
  /** A probe of `owner`: exec probes run with its env and cwd, log probes read its matcher. */
  create(probe: ProbeSpec, owner: ProcessSpec, logMatcher: LogMatcher | undefined, channel?: ReadinessChannel | undefined): Probe;
  readonly createLogMatcher: typeof createLogMatcher;
  /** A notify or fd probe's channel for one run of owner, opened before its spawn; undefined for other probes. Throws when it cannot be opened. */
  readonly openChannel: typeof openReadinessChannel;
  readonly watchReadiness: typeof watchReadiness;
  readonly watchLiveness: typeof watchLiveness;
}

/** One process of another container, as the runner sees it: found, and stopped within a budget. */
export interface ExternalKit {
  /** One search of /proc for the live processes matching now; never sidecar-init or what it started. */
  search(match: ExternalMatch): Promise<ProcessSearch>;
  /** The readiness probe of an external without one of its own; `onFound` hears the first processes it found. */
  presenceProbe(match: ExternalMatch, onFound: (processes: readonly FoundProcess[]) => void): Probe;
  /** The readiness of an `announced:FILE` external, which is also how it is found; `onFound` hears its first announcement. */
  announcedProbe(file: string, onFound: (announcement: Announcement) => void): Probe;
  /** Quit endpoint, signal, wait until gone, SIGKILL at the end of the budget (or at once on abort). Never rejects. */
  stop(
    name: string,
    external: ExternalSpec,
    options: { readonly budgetMs: number; readonly logger: Logger; readonly abort: AbortSignal },
  ): Promise<ExternalStopOutcome>;
}

/** What the runner uses to run preStop, postStart and the drain. */
export interface HookKit {
  readonly run: typeof runHook;
  readonly drain: typeof runDrain;
}

/** `--announce` and `--until`: the lifecycle's state written for other containers, and theirs watched. */
export interface AnnounceKit {
  /** Keeps --announce's file at the current state; undefined without --announce. */
  readonly announcer: Announcer | undefined;
  /** Watches another container's file (--until), through the owner check. */
  readonly watch: AnnouncementSource['watch'];
}

export interface SuperviseDeps {
  readonly spawner: Spawner;
  readonly probes: ProbeKit;
  readonly hooks: HookKit;
  readonly externals: ExternalKit;
  /** Only with --announce or --until. */
  readonly announce?: AnnounceKit | undefined;
  readonly logger: Logger;
  /** The addon's signal handler, given the app's route after every event; without it the listener forwards each signal. */
  readonly forwarder?: SignalForwarder | undefined;
}

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

import type { Logger } from 'pino';
import type { Announcement } from '../plan/announced-state.ts';
import type {
  DrainSpec,
  ExternalMatch,
  ExternalSpec,
  HookSpec,
  LivenessSpec,
  ProbeSpec,
  ProcessSpec,
  ReadinessSpec,
} from '../plan/plan.ts';
import type { FoundProcess, ProcessSearch } from '../plan/process-match.ts';
import type { HookContext, HookOutcome } from '../hooks/hook.ts';
import type { Spawner } from '../process/child.ts';
import type { SignalForwarder } from '../process/signal-forwarder.ts';
import type { LogMatcher } from '../probes/log-matcher.ts';
import type { ProbeDeps } from '../probes/create-probe.ts';
import type { Probe } from '../probes/probe.ts';
import type { ChannelEvents, ReadinessChannel } from '../probes/readiness-channel.ts';
import type { StatusSnapshot } from '../plan/status-snapshot.ts';
import type { ControlCommand, ExternalStopOutcome } from '../lifecycle/events.ts';

// The ports: what the runner needs of the world, said in the runner's terms,
// and what it offers the servers. Each edge implements its port and imports
// nothing else of src/runner/ (a folder rule); main.ts assembles the kits in
// one place (assembleKits) and hands them to startSupervision.

/** What the runner uses to probe processes. */
export interface ProbeKit {
  /** A probe of a process: exec probes run with its env, cwd and user, log probes read its matcher, notify and fd probes its channel. */
  create(probe: ProbeSpec, owner: ProbeDeps): Probe;
  /** The matcher a log probe reads, fed with every line of its process's output from the spawn on. */
  createLogMatcher(pattern: string): LogMatcher;
  /** A notify or fd probe's channel for one run of owner, opened before its spawn; undefined for other probes. Throws when it cannot be opened. */
  openChannel(probe: ProbeSpec, owner: ProcessSpec, events: ChannelEvents): ReadinessChannel | undefined;
  /**
   * Probes at the readiness's periods until `signal` aborts, calling `onChange`
   * on changes only (the first pass, a later failure, a recovery); never after
   * the abort. The startup deadline is the lifecycle's, not the watch's.
   */
  watchReadiness(
    probe: Probe,
    readiness: Pick<ReadinessSpec, 'periodMs' | 'timeoutMs' | 'periodAfterStartMs'>,
    onChange: (ready: boolean, detail: { readonly attempts: number; readonly lastFailure: string | undefined }) => void,
    signal: AbortSignal,
  ): void;
  /** Calls `onFailed` once, after failureThreshold consecutive failures, and stops; nothing after `signal` aborts. */
  watchLiveness(
    probe: Probe,
    liveness: Omit<LivenessSpec, 'probe'>,
    onFailed: (detail: { readonly failures: number; readonly lastFailure: string }) => void,
    signal: AbortSignal,
  ): void;
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

/** What the runner uses to run preStop, postStart and the drain; each never rejects, and ends its work when `signal` aborts. */
export interface HookKit {
  run(hook: HookSpec, context: HookContext, signal: AbortSignal): Promise<HookOutcome>;
  drain(drain: DrainSpec, context: HookContext, signal: AbortSignal): Promise<HookOutcome>;
}

/** `--announce` and `--until`: the lifecycle's state written for other containers, and theirs watched. */
export interface AnnounceKit {
  /** Keeps --announce's file at the current state; undefined without --announce. */
  readonly announcer:
    | {
        /** The state after an event (the same state again: nothing written). */
        update(announcement: Announcement): void;
        /** Resolves once the last state asked for is written (or failed); at exit, before the process ends. */
        flush(): Promise<void>;
      }
    | undefined;
  /**
   * Watches another container's file (--until), through the owner check:
   * `onChange` hears each announcement it reads (undefined while there is no
   * valid one by the owner), until `signal` aborts.
   */
  watch(path: string, onChange: (announcement: Announcement | undefined) => void, signal: AbortSignal): void;
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
  /** Orphans the reaper has reaped so far (processes sidecar-init adopted, not its own children), for the status. */
  reapedOrphans(): number;
}

/** What the status server reads: a fresh snapshot per request, one consistent moment, never a handle on the lifecycle. */
export interface StatusSource {
  snapshot(): StatusSnapshot;
}

/** The lifecycle's answer to a control command: done (ok), or refused and why. */
export interface ControlReply {
  readonly ok: boolean;
  readonly message: string;
}

/** What the control socket reads: the status, and a command of a client with this uid, answered by the lifecycle. */
export interface ControlSource extends StatusSource {
  control(command: ControlCommand, uid: number): Promise<ControlReply>;
}

import type { AnnouncedState } from './announced-state.ts';
import type { LinearPattern } from './linear-pattern.ts';

// The Plan is what the program runs: one normalized, validated, readonly value
// built from the CLI and the YAML file before anything is spawned. Nothing after
// src/config sees the raw config; later features (restarts, liveness, hooks,
// mesh adapters) add fields here, not side channels.

/** external: a process of another container of the pod, never started by sidecar-init (see ExternalSpec). */
export type Role = 'init' | 'sidecar' | 'app' | 'external';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** sidecar-init's own log: JSON lines for pipelines, or one readable line per event for people. */
export type LogFormat = 'json' | 'text';

/**
 * A process's stdout and stderr. inherit: its descriptors are sidecar-init's
 * own (no copy). prefix: each line as `NAME | LINE`. json: each line as one
 * JSON object {time, proc, stream, msg}.
 */
export type OutputMode = 'inherit' | 'prefix' | 'json';

/** Where the status server listens. */
export interface StatusAddress {
  readonly host: string;
  /** 0 lets the system choose (the log names the port). */
  readonly port: number;
}

export type ProbeSpec =
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number }
  | {
      readonly kind: 'http';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      /** Statuses that pass; undefined means any 2xx or 3xx. */
      readonly expectStatus: readonly number[] | undefined;
    }
  | { readonly kind: 'exec'; readonly command: readonly string[] }
  /** Passes once a line of the process's stdout or stderr matches (readiness only). */
  | { readonly kind: 'log'; readonly pattern: string }
  /** Passes while the file exists. */
  | { readonly kind: 'file'; readonly path: string }
  /** Passes when grpc.health.v1.Health/Check for service ('' is the whole server) answers SERVING. */
  | { readonly kind: 'grpc'; readonly host: string; readonly port: number; readonly service: string }
  /**
   * systemd's notify socket (readiness of a started process only): passes once it
   * sends READY=1. watchdogMs: once ready, WATCHDOG=1 must come at least this
   * often, or the liveness rule applies; undefined: no watchdog.
   */
  | { readonly kind: 'notify'; readonly watchdogMs: number | undefined }
  /** s6's notification-fd (readiness of a started process only): passes once it writes a newline to descriptor fd. */
  | { readonly kind: 'fd'; readonly fd: number }
  /** An external of another container's `--announce` file (`announced:FILE`): passes while it says ready. Not written by users. */
  | { readonly kind: 'announced'; readonly file: string }
  /** An external's readiness when it has no probe: passes once a process matching it exists. Not written by users. */
  | { readonly kind: 'process'; readonly match: ExternalMatch };

/**
 * How an external's processes are told apart from every other process in the
 * pod's PID namespace: every field given must match; at least one of comm,
 * cmdline, uid is (config checks it). Its cmdline is compiled once, here.
 */
export interface ProcessMatch {
  /** Exact /proc/PID/comm: the kernel keeps 15 bytes of it (truncateComm, process-match.ts). */
  readonly comm?: string | undefined;
  /** Tested against the arguments joined by single spaces (the NULs of /proc/PID/cmdline). */
  readonly cmdline?: LinearPattern | undefined;
  /** The real UID (first field of Uid: in /proc/PID/status). */
  readonly uid?: number | undefined;
  /**
   * How many processes it may match, a matched process's own children (matched
   * too, or not) not counted: more means the matcher is looser than meant, and
   * sidecar-init refuses to signal any of them.
   */
  readonly maxMatches: number;
}

export type ExternalMatch = ProcessMatch;

/**
 * How an external is stopped at teardown: its HTTP stop endpoint (any 2xx
 * counts; a refused connection means it is gone) and/or a signal to every
 * matching process (SIGTERM when there is no HTTP stop, or when it fails);
 * then sidecar-init waits for every match to be gone, within the grace budget,
 * and SIGKILLs what is left if permitted. none: left alone.
 */
export type ExternalStopSpec =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'stop';
      readonly http: { readonly url: string; readonly method: string } | undefined;
      readonly signal: NodeJS.Signals | undefined;
    };

/** A process of another container (shareProcessNamespace), waited for and stopped like a sidecar. */
export interface ExternalSpec {
  readonly preset: string | undefined;
  readonly match: ExternalMatch;
  readonly stop: ExternalStopSpec;
  /** false: left running when sidecar-init exits non-zero (a Deployment's app container restarts alone). */
  readonly stopOnFailure: boolean;
  /** true: never appearing by its readiness deadline is logged and skipped, not a startup failure. */
  readonly optional: boolean;
  /**
   * true: it may be looked for when sidecar-init runs in the host's initial PID
   * namespace (not in a container or pod), where every user's processes are
   * visible; refused there otherwise.
   */
  readonly allowHost: boolean;
  /**
   * `announced:FILE`: another container's sidecar-init, known only by its
   * `--announce` file on a shared volume (no shared PID namespace): ready while
   * the file says ready, stopped when it says exited. Its match is unused.
   */
  readonly announced?: string | undefined;
  /** Logged when the HTTP stop answers 404 (an endpoint the proxy must be configured to serve). */
  readonly notFoundHint: string | undefined;
}

/** The control socket: at --control PATH, none, or the default one for sidecar-init's uid (parseControlPath, config/global-options.ts). */
export type ControlSocket = { readonly kind: 'path'; readonly path: string } | { readonly kind: 'default' } | { readonly kind: 'none' };

export interface ReadinessSpec {
  readonly probe: ProbeSpec;
  /** Time between the start of one attempt and the start of the next. */
  readonly periodMs: number;
  /** Bound on one attempt. */
  readonly timeoutMs: number;
  /** Bound on the whole wait for the first success, across restarts; startup fails past it. */
  readonly deadlineMs: number;
  /** Once started, readiness keeps being tracked at this slower period (it never restarts anything). */
  readonly periodAfterStartMs: number;
}

/** After failureThreshold consecutive failures the process is stopped and restarted under its policy. */
export interface LivenessSpec {
  /** Any kind but 'log'. */
  readonly probe: ProbeSpec;
  readonly periodMs: number;
  readonly timeoutMs: number;
  readonly failureThreshold: number;
  /** Counted from the moment the process is started (a sidecar: ready). */
  readonly initialDelayMs: number;
}

/**
 * always: restart on any exit (a sidecar's default, as Kubernetes). on-failure:
 * restart on a non-zero exit or a signal. never: an init step's and the app's default.
 */
export type RestartPolicy = 'always' | 'on-failure' | 'never';

export interface RestartSpec {
  readonly policy: RestartPolicy;
  /** First restart is immediate; then initialMs, doubling up to maxMs. */
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  /** A run at least this long resets the backoff and the restart count. */
  readonly resetAfterMs: number;
  /** After this many restarts the process counts as failed; undefined: no limit. */
  readonly maxRestarts: number | undefined;
}

/** preStop, postStart and the pod-level drain command. Hooks inherit the process's env and cwd. */
export type HookSpec =
  | { readonly kind: 'exec'; readonly command: readonly [string, ...string[]]; readonly timeoutMs: number }
  | { readonly kind: 'http'; readonly url: string; readonly method: string; readonly timeoutMs: number };

/** Runs first on termination, before any stop signal: a plain delay or a command. */
export type DrainSpec = { readonly kind: 'delay'; readonly ms: number } | { readonly kind: 'hook'; readonly hook: HookSpec };

/**
 * Who a process runs as, resolved through /etc/passwd and /etc/group before
 * anything starts. Its exec hooks and exec probes run as the same user. The
 * child's supplementary groups are cleared (libuv calls setgroups(0) before
 * setgid and setuid).
 */
export interface ProcessUser {
  /** undefined: sidecar-init's own uid (only a group was given). */
  readonly uid: number | undefined;
  readonly gid: number;
  /**
   * HOME for the process, unless its env sets one: the user's home directory
   * in /etc/passwd, "/" for a uid without an entry (as container runtimes do);
   * undefined when only a group was given (HOME stays sidecar-init's).
   */
  readonly home: string | undefined;
}

/** Where signals go: the child's whole process group, or the child alone (--single-child). */
export type SignalTarget = 'group' | 'process';

export interface ProcessSpec {
  readonly name: string;
  readonly role: Role;
  /** argv: program first. Never run through a shell. An external's is never run: its name, for logs. */
  readonly command: readonly [string, ...string[]];
  /** Added to the supervisor's own environment. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Entered before the switch to `user` (libuv chdirs, then drops privileges),
   * so it need not be searchable by that user; reading in it does.
   */
  readonly cwd: string | undefined;
  /** undefined: sidecar-init's own user and groups. */
  readonly user: ProcessUser | undefined;
  readonly readiness: ReadinessSpec | undefined;
  readonly liveness: LivenessSpec | undefined;
  readonly restart: RestartSpec;
  /** A sidecar whose exit (or exhausted maxRestarts) ends the pod with EXIT_FATAL_SIDECAR. */
  readonly fatal: boolean;
  /** Runs right after spawn; the next entry in the startup sequence waits for it. */
  readonly postStart: HookSpec | undefined;
  /** Runs when termination starts; the process gets its stop signal once it has finished or failed. */
  readonly preStop: HookSpec | undefined;
  /**
   * The signal that stops this process. undefined: SIGTERM, except that on
   * termination the app hears the signal the supervisor received.
   */
  readonly stopSignal: NodeJS.Signals | undefined;
  /** Caps how long this process alone is waited for after its stop signal, within the budget. */
  readonly graceMs: number | undefined;
  readonly signalTarget: SignalTarget;
  /** The app's exit codes that count as 0 (e.g. 143 for a JVM stopped by SIGTERM); [] elsewhere. */
  readonly successCodes: readonly number[];
  /**
   * Names this entry waits for before it starts: an init step must have exited 0,
   * a sidecar must be started. Without `after:` anywhere in the config each entry
   * waits for the one listed before it, which gives the Kubernetes initContainers
   * order; with it, only for the names given, so independent entries start
   * together. The app waits for its `after`, or for every other entry. Teardown
   * runs this graph backwards.
   */
  readonly after: readonly string[];
  /** Its own `output`, else the default (--output, SIDECAR_INIT_OUTPUT, the file's top-level `output`), else inherit. */
  readonly output: OutputMode;
  /** Set exactly when role is external; such a process always has readiness (its probe, or kind 'process'). */
  readonly external: ExternalSpec | undefined;
}

/**
 * The options that are not about one named process, each named as its key in
 * the file (global-options.ts has a row for each, from which its flag, its
 * variable, its help, its schema and what `plan` prints are derived). A
 * duration is a number of milliseconds here where the file writes it with its
 * unit, and its name says so: grace is graceMs, as every duration of the plan
 * (periodMs, timeoutMs) and of `plan --json` carries its unit.
 */
export interface PlanOptions {
  /** grace: the whole budget from the first stop signal (or the app's exit) to the supervisor's exit. */
  readonly graceMs: number;
  /** Runs first on termination, before any stop signal. */
  readonly drain: DrainSpec | undefined;
  readonly logLevel: LogLevel;
  /** undefined: decided at start, text when stderr is a terminal and json elsewhere. */
  readonly logFormat: LogFormat | undefined;
  /** The status server's address; undefined: no status server. */
  readonly statusAddr: StatusAddress | undefined;
  /** Where the one-line reason for the exit is written at the end. */
  readonly terminationLog: TerminationLog;
  /** The control socket (`sidecar-init ctl`). */
  readonly control: ControlSocket;
  /** `--announce FILE`: the lifecycle's state is written there for other containers (kubexit-style coordination). */
  readonly announce: string | undefined;
  /** `--until FILE[=STATE]`: run until another container's announce file reaches STATE, then end as if the app exited 0. */
  readonly until: UntilSpec | undefined;
  /**
   * `--announcer-uid`: the uid that must own another container's announce file
   * (--until, announced:FILE) for what it says to count; undefined: sidecar-init's own.
   */
  readonly announcerUid: number | undefined;
  /** The output of the processes without their own `output` (already applied to each ProcessSpec's). */
  readonly output: OutputMode;
  /**
   * Signals rewritten before they reach the app (dumb-init's --rewrite, by name);
   * null drops the signal. A rewritten SIGTERM or SIGINT still starts termination.
   */
  readonly rewrite: Readonly<Partial<Record<NodeJS.Signals, NodeJS.Signals | null>>>;
  /** Each process alone is signalled, not its group, unless it sets signalGroup (already applied to each ProcessSpec's signalTarget). */
  readonly singleChild: boolean;
  /**
   * `--parent-death-signal` (tini's -p): the signal sidecar-init has the kernel
   * send it when its parent exits, handled as if anyone had sent it; undefined:
   * none. Nothing as PID 1, which has no parent in its PID namespace.
   */
  readonly parentDeathSignal: NodeJS.Signals | undefined;
}

export interface Plan extends PlanOptions {
  /** Every process in list order; exactly one has role 'app' and it is last. */
  readonly processes: readonly ProcessSpec[];
}

export interface UntilSpec {
  readonly file: string;
  readonly state: AnnouncedState;
}

/**
 * The termination message's file: Kubernetes' path only when it is there
 * (if-present: anything that fails is a debug line), a file given (a failure is
 * a warning), or none.
 */
export type TerminationLog =
  | { readonly kind: 'if-present'; readonly path: string }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'none' };

/** The shape of DEFAULTS: each value typed as the plan field it fills. */
export interface PlanDefaults {
  readonly graceMs: number;
  readonly logLevel: LogLevel;
  readonly output: OutputMode;
  readonly terminationLog: string;
  readonly untilState: AnnouncedState;
  readonly appName: string;
  readonly restartPolicy: Readonly<Record<Role, RestartPolicy>>;
  readonly fatal: boolean;
  readonly readiness: Omit<ReadinessSpec, 'probe'>;
  readonly liveness: Omit<LivenessSpec, 'probe'>;
  readonly backoff: Omit<RestartSpec, 'policy' | 'maxRestarts'>;
  readonly hook: { readonly timeoutMs: number; readonly httpMethod: string };
  readonly external: Readonly<Pick<ExternalSpec, 'stopOnFailure' | 'optional' | 'allowHost'>> & {
    readonly maxMatches: number;
    readonly stopMethod: string;
  };
}

/**
 * Every default of the plan, in one table: what a value left out of the file,
 * the flags and the variables becomes. Help, the JSON Schema and `plan` read
 * them from here. Typed by PlanDefaults rather than `as const`: Stryker
 * mutates nothing inside an `as` expression, so with `as const` not one of
 * these values would be measured (docs/mutation-testing.md).
 */
export const DEFAULTS: PlanDefaults = {
  graceMs: 25_000,
  logLevel: 'info',
  output: 'inherit',
  /** Kubernetes' default terminationMessagePath, written only when it is there. */
  terminationLog: '/dev/termination-log',
  /** What --until waits for when no STATE is given: the other side is down. */
  untilState: 'exited',
  /** A process named by neither the file nor a flag: the app given as operands. */
  appName: 'app',
  /** A sidecar restarts on any exit, as Kubernetes restarts a sidecar; an init step and the app run once. */
  restartPolicy: { init: 'never', sidecar: 'always', app: 'never', external: 'never' },
  /** A sidecar only: whether its end ends the pod. */
  fatal: false,
  readiness: { periodMs: 100, timeoutMs: 1_000, deadlineMs: 60_000, periodAfterStartMs: 1_000 },
  liveness: { periodMs: 1_000, timeoutMs: 1_000, failureThreshold: 3, initialDelayMs: 0 },
  /** The restart policy is the role's (restart.ts: always for a sidecar, never for an init step and the app). */
  backoff: { initialBackoffMs: 1_000, maxBackoffMs: 60_000, resetAfterMs: 10 * 60_000 },
  hook: { timeoutMs: 10_000, httpMethod: 'GET' },
  external: {
    /** How many processes a match may find (ProcessMatch.maxMatches). */
    maxMatches: 1,
    /** The method of an external's HTTP stop endpoint (Istio's /quitquitquit and the like take POST). */
    stopMethod: 'POST',
    /** Stopped at teardown even when sidecar-init exits non-zero. */
    stopOnFailure: true,
    /** Never appearing by its readiness deadline is a startup failure. */
    optional: false,
    /** Refused where /proc shows the host's processes. */
    allowHost: false,
  },
};

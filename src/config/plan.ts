// The Plan is what the program runs: one normalized, validated, readonly value
// built from the CLI and the YAML file before anything is spawned. Nothing after
// src/config sees the raw config; later features (restarts, liveness, hooks,
// mesh adapters) add fields here, not side channels.

export type Role = 'init' | 'sidecar' | 'app';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

export type ProbeSpec =
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number }
  | { readonly kind: 'http'; readonly url: string }
  | { readonly kind: 'exec'; readonly command: readonly string[] };

export interface ReadinessSpec {
  readonly probe: ProbeSpec;
  /** Time between the start of one attempt and the start of the next. */
  readonly periodMs: number;
  /** Bound on one attempt. */
  readonly timeoutMs: number;
  /** Bound on the whole wait for the first success; startup fails past it. */
  readonly deadlineMs: number;
}

export interface ProcessSpec {
  readonly name: string;
  readonly role: Role;
  /** argv: program first. Never run through a shell. */
  readonly command: readonly [string, ...string[]];
  /** Added to the supervisor's own environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  readonly readiness: ReadinessSpec | undefined;
  /**
   * Names this entry waits for before it starts: an init step must have exited 0,
   * a sidecar must be started. Without explicit dependencies each entry waits for
   * the one listed before it and the app waits for all of them, which gives the
   * Kubernetes initContainers order. Teardown runs this graph backwards.
   */
  readonly after: readonly string[];
}

export interface Plan {
  /** Whole budget from the first stop signal (or the app's exit) to the supervisor's exit. */
  readonly graceMs: number;
  readonly logLevel: LogLevel;
  /** Every process in list order; exactly one has role 'app' and it is last. */
  readonly processes: readonly ProcessSpec[];
}

export const DEFAULT_GRACE_MS = 25_000;
export const DEFAULT_PROBE_PERIOD_MS = 100;
export const DEFAULT_PROBE_TIMEOUT_MS = 1_000;
export const DEFAULT_PROBE_DEADLINE_MS = 60_000;
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

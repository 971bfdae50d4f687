// One Probe interface for every kind (tcp, http, exec, file, log; later mesh
// endpoints). A probe makes one attempt; scheduling lives in probe-loop.ts.

import type { AttemptOutcome } from '../attempt/run-attempt.ts';

/** A probe attempt's verdict: the shared attempt outcome (../attempt/run-attempt.ts). */
export type ProbeOutcome = AttemptOutcome;

export interface Probe {
  /**
   * A short description for logs and failure reasons, e.g. "tcp://127.0.0.1:15000";
   * an exec probe names only its program ("exec:pg_isready"), since its
   * arguments may carry tokens.
   */
  readonly description: string;
  /** An exec probe's whole command line, for debug-level lines only (it may carry tokens). */
  readonly commandLine?: string;
  /**
   * One attempt, bounded by timeoutMs. Resolves, never rejects; aborting the
   * signal ends the attempt early (and kills an exec probe's process).
   */
  check(timeoutMs: number, signal: AbortSignal): Promise<ProbeOutcome>;
  /**
   * For probes that can tell when their answer may have changed (a file
   * appeared, a log line matched): calls wake to say "check again now", so the
   * change is seen within milliseconds instead of at the next period. A wake is
   * a hint, never an outcome; it may come more than once or without a change.
   * Everything it holds (watchers, timers, listeners) is released on abort.
   */
  subscribe?(wake: () => void, signal: AbortSignal): void;
}

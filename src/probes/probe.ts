// One Probe interface for every kind (tcp, http, exec; later log, file, mesh
// endpoints). A probe makes one attempt; scheduling lives in wait-for-ready.ts.

export type ProbeOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export interface Probe {
  /** A short description for logs, e.g. "tcp://127.0.0.1:15000". */
  readonly description: string;
  /**
   * One attempt, bounded by timeoutMs. Resolves, never rejects; aborting the
   * signal ends the attempt early (and kills an exec probe's process).
   */
  check(timeoutMs: number, signal: AbortSignal): Promise<ProbeOutcome>;
}

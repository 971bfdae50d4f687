import { constants } from 'node:os';
import { assertNever } from './assert-never.ts';

// How a process ended (as the spawner and the reaper report it) and what that
// means: success or not, and the code a shell would report. The reducer decides
// restarts and sidecar-init's own exit code from these; the edges only report.
export type ExitStatus =
  | { readonly kind: 'exited'; readonly code: number }
  | { readonly kind: 'signaled'; readonly signal: NodeJS.Signals }
  /** The program was never running: 127 not found, 126 not executable (as shells and tini). */
  | { readonly kind: 'spawn-failed'; readonly code: 126 | 127; readonly reason: string };

export const EXIT_NOT_EXECUTABLE = 126;
export const EXIT_NOT_FOUND = 127;

const SIGNAL_EXIT_BASE = 128;

export function signalNumber(signal: NodeJS.Signals): number {
  const number = constants.signals[signal];
  if (number === undefined) throw new Error(`unknown signal ${signal}`);
  return number;
}

/** 128+N, what a shell reports for a process killed by signal N. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return SIGNAL_EXIT_BASE + signalNumber(signal);
}

/** The exit code a shell would report for this status: 128+N for a signal. */
export function exitCodeOf(status: ExitStatus): number {
  switch (status.kind) {
    case 'exited':
      return status.code;
    case 'signaled':
      return signalExitCode(status.signal);
    case 'spawn-failed':
      return status.code;
    default:
      return assertNever(status);
  }
}

export function isSuccess(status: ExitStatus): boolean {
  return status.kind === 'exited' && status.code === 0;
}

/** For messages: "exited with code 3", "killed by SIGTERM", or why it never ran. */
export function describeExitStatus(status: ExitStatus): string {
  switch (status.kind) {
    case 'exited':
      return `exited with code ${status.code}`;
    case 'signaled':
      return `killed by ${status.signal}`;
    case 'spawn-failed':
      return status.reason;
    default:
      return assertNever(status);
  }
}

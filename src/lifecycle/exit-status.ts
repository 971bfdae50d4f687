import { constants } from 'node:os';
import type { ExitStatus } from '../process/exit-status.ts';
import { assertNever } from '../util/assert-never.ts';

// What an exit means: success or not, and the code a shell would report. The
// lifecycle decides restarts and the supervisor's own exit code from these, so
// they live beside the reducer; the spawner only reports an ExitStatus.

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

import { exitCodeOf, isSuccess, signalExitCode } from '../process/exit-status.ts';
import { assertNever } from '../util/assert-never.ts';
import type { ProcState, StopReason } from './state.ts';

/**
 * A sidecar failed before it was started (readiness deadline passed, or it
 * exited 0 during startup) and has no failing code of its own to report.
 */
export const EXIT_SIDECAR_FAILED = 1;

/**
 * The supervisor's exit code, decided once teardown is complete. The app's code
 * wins whenever the app ran, so a Job reports what the job did; sidecars' own
 * codes never change it.
 */
export function decideExitCode(reason: StopReason, app: ProcState): number {
  switch (reason.kind) {
    case 'app-exited':
      return exitCodeOf(reason.status);
    case 'signal':
      // The app got the signal and decided; if it never started, report the signal as a shell would.
      return app.exit !== undefined ? exitCodeOf(app.exit) : signalExitCode(reason.signal);
    case 'init-failed':
      return exitCodeOf(reason.status);
    case 'sidecar-failed':
      return reason.status !== undefined && !isSuccess(reason.status) ? exitCodeOf(reason.status) : EXIT_SIDECAR_FAILED;
    default:
      return assertNever(reason);
  }
}

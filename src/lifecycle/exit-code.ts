import type { ProcessSpec } from '../plan/plan.ts';
import { exitCodeOf, isSuccess, signalExitCode } from '../plan/exit-status.ts';
import { assertNever } from '../plan/assert-never.ts';
import type { ProcState, StopReason } from './state.ts';

/**
 * A sidecar failed before it was started (readiness deadline passed, or it
 * exited 0 during startup) and has no failing code of its own to report.
 */
export const EXIT_SIDECAR_FAILED = 1;
/**
 * The app's work succeeded, but an external that sidecar-init was to stop is
 * still there at the end of the grace budget (it came back under a new PID,
 * sidecar-init may not signal it, or its matcher matched more processes than
 * its maxMatches): the pod would not end as the user asked, so the run fails.
 */
export const EXIT_EXTERNAL_LEFT_RUNNING = 1;
/** A fatal sidecar went down for good (sysexits' EX_UNAVAILABLE: a service the app needs is gone). */
export const EXIT_FATAL_SIDECAR = 69;

/**
 * The supervisor's exit code, decided once teardown is complete. The app's code
 * wins whenever the app ran, so a Job reports what the job did (its
 * successCodes counting as 0); sidecars' own codes never change it, except a
 * fatal sidecar's end.
 */
export function decideExitCode(reason: StopReason, app: ProcState, appSpec: ProcessSpec): number {
  switch (reason.kind) {
    case 'app-exited':
      return appExitCode(exitCodeOf(reason.status), appSpec);
    case 'signal':
      // The app got the signal and decided; if it never ran, report the signal as a shell would.
      return app.status === 'exited' ? appExitCode(exitCodeOf(app.exit), appSpec) : signalExitCode(reason.signal);
    case 'init-failed':
      return exitCodeOf(reason.status);
    case 'sidecar-failed':
      return reason.status !== undefined && !isSuccess(reason.status) ? exitCodeOf(reason.status) : EXIT_SIDECAR_FAILED;
    case 'fatal-sidecar':
      return EXIT_FATAL_SIDECAR;
    case 'external-failed':
      return EXIT_SIDECAR_FAILED;
    case 'until':
      // The other container is done: this one's work (a proxy, say) ends with it, successfully.
      return 0;
    default:
      return assertNever(reason);
  }
}

/** A non-zero code already says the run failed, and says more; a 0 becomes EXIT_EXTERNAL_LEFT_RUNNING. */
export function withExternalsLeftRunning(exitCode: number, externalsLeftRunning: number): number {
  return exitCode === 0 && externalsLeftRunning > 0 ? EXIT_EXTERNAL_LEFT_RUNNING : exitCode;
}

function appExitCode(code: number, appSpec: ProcessSpec): number {
  return appSpec.successCodes.includes(code) ? 0 : code;
}

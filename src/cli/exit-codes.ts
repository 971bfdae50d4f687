// Exit codes of sidecar-init itself. The app's own code, 128+N for a signal,
// 126 (not executable) and 127 (not found) are in src/plan/exit-status.ts;
// a failed startup's code is decided in src/lifecycle/exit-code.ts.

export const EXIT_SUCCESS = 0;
/** sidecar-init itself failed (an internal error), as tini reports its own failures. */
export const EXIT_INTERNAL = 1;
/** A usage or configuration error, reported before anything is spawned (as shells and tini do). */
export const EXIT_USAGE = 2;
/**
 * A bug in sidecar-init: an error nothing expected (sysexits.h's EX_SOFTWARE),
 * reported in one line before anything started or after a command that starts
 * nothing; a run that fails once processes are up exits EXIT_INTERNAL.
 */
export const EXIT_SOFTWARE = 70;

// How a process ended, as the spawner and the reaper report it. What an exit
// means (success, the code a shell would report) is the lifecycle's business:
// see src/lifecycle/exit-status.ts.
export type ExitStatus =
  | { readonly kind: 'exited'; readonly code: number }
  | { readonly kind: 'signaled'; readonly signal: NodeJS.Signals }
  /** The program was never running: 127 not found, 126 not executable (as shells and tini). */
  | { readonly kind: 'spawn-failed'; readonly code: 126 | 127; readonly reason: string };

export const EXIT_NOT_EXECUTABLE = 126;
export const EXIT_NOT_FOUND = 127;

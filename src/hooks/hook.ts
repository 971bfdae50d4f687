import type { ProcessUser } from '../plan/plan.ts';
import type { OutputStream } from '../process/child.ts';

// What every hook (preStop, postStart, the pod-level drain) is given and returns.
// A hook's result is information for the log: a failing preStop never changes
// the exit code (issue 4), so an outcome is a value, never an exception.

/** ok iff the hook did its job; reason says what went wrong, for the log. elapsedMs is whole milliseconds. */
export type HookOutcome =
  | { readonly ok: true; readonly elapsedMs: number }
  | { readonly ok: false; readonly reason: string; readonly elapsedMs: number };

export interface HookContext {
  /** The hooked process's env and cwd: a hook runs "inside" its process, as in a container. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  /** The hooked process's user: an exec hook runs as it (an http hook is a request sidecar-init makes). */
  readonly user?: ProcessUser | undefined;
  /**
   * Each line of an exec hook's output, decoded as UTF-8 and without its "\n";
   * for an http hook, the first line of the response body. Every call happens
   * before the outcome resolves. Must not throw.
   */
  readonly onOutputLine: (line: string, stream: OutputStream) => void;
}

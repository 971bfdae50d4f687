import type { ProcessSpec, Role, SignalTarget } from './plan.ts';
import type { Origin } from './problem.ts';

/**
 * A process before the plan is built: what the normalize steps produce. Two
 * fields depend on the whole configuration and are resolved by build-plan.ts.
 */
export interface ProcessDraft extends Omit<ProcessSpec, 'after' | 'signalTarget'> {
  /** As written; undefined when not given. */
  readonly after: readonly string[] | undefined;
  /** From signalGroup; undefined leaves it to singleChild. */
  readonly signalTarget: SignalTarget | undefined;
}

/**
 * One process as read from the file, a flag or the app operands, on its way to
 * the plan. The cross-entry rules (names, apps, flag targets, after) work on these.
 */
export interface Entry {
  /** Undefined when unreadable; that problem is already reported. */
  readonly name: string | undefined;
  readonly role: Role | undefined;
  /** Where the entry was defined: processes[i] in the file, or the flag. */
  readonly origin: Origin;
  /** The names in `after:`, when given and readable (only file entries have it). */
  readonly after: readonly string[] | undefined;
  /** Undefined when the entry has problems of its own. */
  readonly draft: ProcessDraft | undefined;
}

import type { ProcessSpec, Role } from './plan.ts';
import type { Origin } from './problem.ts';

/** A process before `after` is known: what the normalize steps produce. */
export type ProcessDraft = Omit<ProcessSpec, 'after'>;

/**
 * One process as read from the file, a flag or the app operands, on its way to
 * the plan. The cross-entry rules (names, apps, --ready targets) work on these.
 */
export interface Entry {
  /** Undefined when unreadable; that problem is already reported. */
  readonly name: string | undefined;
  readonly role: Role | undefined;
  /** Where the entry was defined: processes[i] in the file, or the flag. */
  readonly origin: Origin;
  /** Undefined when the entry has problems of its own. */
  readonly draft: ProcessDraft | undefined;
}

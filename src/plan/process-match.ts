import { DEFAULTS, type ProcessMatch } from './plan.ts';

export type { ProcessMatch } from './plan.ts';

// How an external's processes are told apart from every other process in the
// pod's PID namespace: what config builds, what the plan printer shows and
// what the /proc finder runs, and what a search finds (the externals' port,
// src/runner/ports.ts, carries it between the finder and the runner).

/** The longest comm the kernel keeps (TASK_COMM_LEN - 1). */
export const COMM_MAX_BYTES = 15;

/** What a user wrote as comm, as the kernel stores it: cut to 15 bytes. */
export function truncateComm(comm: string): string {
  const bytes = Buffer.from(comm, 'utf8');
  return bytes.length <= COMM_MAX_BYTES ? comm : bytes.subarray(0, COMM_MAX_BYTES).toString('utf8');
}

/** As the README writes it: comm NAME, cmdline /REGEX/, uid N (and maxMatches N when it is not 1). */
export function describeMatch(match: ProcessMatch): string {
  const parts: string[] = [];
  if (match.comm !== undefined) parts.push(`comm ${match.comm}`);
  if (match.cmdline !== undefined) parts.push(`cmdline /${match.cmdline.source}/`);
  if (match.uid !== undefined) parts.push(`uid ${match.uid}`);
  if (match.maxMatches !== DEFAULTS.external.maxMatches) parts.push(`maxMatches ${match.maxMatches}`);
  return parts.join(', ');
}

export interface FoundProcess {
  readonly pid: number;
  readonly ppid: number;
  readonly comm: string;
  readonly cmdline: string;
  readonly uid: number;
  /** When it started (stat's starttime): a PID reused by another process has another. */
  readonly startTime: string;
}

/**
 * What one search saw. too-many: more independent matches than maxMatches (a
 * matched process's children are not counted), so the matcher is looser than
 * meant and nothing it matched may be signalled.
 */
export type ProcessSearch =
  | { readonly kind: 'none' }
  | { readonly kind: 'found'; readonly processes: readonly FoundProcess[] }
  | { readonly kind: 'too-many'; readonly processes: readonly FoundProcess[]; readonly independent: number };

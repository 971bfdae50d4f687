import type { LinearPattern } from './linear-pattern.ts';

// How an external's processes are told apart from every other process in the
// pod's PID namespace: what config builds, what the plan printer shows and
// what the /proc finder runs.

/** Every field given must match; at least one of comm, cmdline, uid is (config checks it). */
export interface ProcessMatch {
  /** Exact /proc/PID/comm: the kernel keeps 15 bytes of it (truncateComm). */
  readonly comm?: string | undefined;
  /** Tested against the arguments joined by single spaces (the NULs of /proc/PID/cmdline). */
  readonly cmdline?: LinearPattern | undefined;
  /** The real UID (first field of Uid: in /proc/PID/status). */
  readonly uid?: number | undefined;
  /**
   * How many processes it may match, a matched process's own children (matched
   * too, or not) not counted: more means the matcher is looser than meant, and
   * sidecar-init refuses to signal any of them.
   */
  readonly maxMatches: number;
}

export const DEFAULT_MAX_MATCHES = 1;
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
  if (match.maxMatches !== DEFAULT_MAX_MATCHES) parts.push(`maxMatches ${match.maxMatches}`);
  return parts.join(', ');
}

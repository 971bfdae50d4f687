import { accessSync, constants, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { delimiter, resolve } from 'node:path';
import { assertNever } from '../plan/assert-never.ts';
import { EXIT_NOT_EXECUTABLE, EXIT_NOT_FOUND } from '../plan/exit-status.ts';
import { errorCode } from '../support/error-code.ts';

// Finds the file execvp(3) would run, before anything is spawned. Node only
// reports ENOENT/EACCES asynchronously and without saying which file or PATH it
// tried; resolving first gives exact 126/127 statuses and messages that name the
// program, and the result is the path we hand to spawn, so it cannot disagree.

export type ResolvedProgram =
  | { readonly ok: true; readonly path: string }
  | {
      readonly ok: false;
      readonly code: typeof EXIT_NOT_FOUND | typeof EXIT_NOT_EXECUTABLE;
      readonly reason: string;
    };

export interface ResolveProgramOptions {
  /** The child's PATH (after its env is applied), or undefined when unset. */
  readonly path: string | undefined;
  /** The child's working directory, absolute. */
  readonly cwd: string;
}

/**
 * What execvp and libuv search when PATH is unset (glibc's _CS_PATH and libuv's
 * _PATH_DEFPATH agree on these two directories).
 */
export const DEFAULT_SEARCH_PATH = '/usr/bin:/bin';

type Candidate = { readonly kind: 'executable' } | { readonly kind: 'missing' } | { readonly kind: 'refused'; readonly why: string };

export function resolveProgram(program: string, options: ResolveProgramOptions): ResolvedProgram {
  // A missing working directory is reported as 126, not 127: the program may well
  // exist, and 127 reads as "command not found" to every operator and shell
  // script. The failure is in how it would be executed, which is what 126 means
  // ("found but cannot be executed"). env -C uses 125, which ExitStatus does not model.
  const cwdProblem = checkWorkingDirectory(options.cwd);
  if (cwdProblem !== undefined) {
    return { ok: false, code: EXIT_NOT_EXECUTABLE, reason: `cannot execute ${program}: ${cwdProblem}` };
  }
  if (program === '') {
    return { ok: false, code: EXIT_NOT_FOUND, reason: 'cannot execute an empty program name' };
  }
  return program.includes('/') ? resolveExplicitPath(program, options.cwd) : searchPath(program, options);
}

function resolveExplicitPath(program: string, cwd: string): ResolvedProgram {
  const path = resolve(cwd, program);
  const candidate = inspectCandidate(path);
  switch (candidate.kind) {
    case 'executable':
      return { ok: true, path };
    case 'missing':
      return { ok: false, code: EXIT_NOT_FOUND, reason: `${program}: no such file (looked for ${path})` };
    case 'refused':
      return { ok: false, code: EXIT_NOT_EXECUTABLE, reason: `cannot execute ${path}: ${candidate.why}` };
    default:
      return assertNever(candidate);
  }
}

function searchPath(program: string, options: ResolveProgramOptions): ResolvedProgram {
  const searched = options.path ?? DEFAULT_SEARCH_PATH;
  let firstRefusal: string | undefined;
  for (const entry of searched.split(delimiter)) {
    // POSIX: a zero-length PATH prefix means the current directory, which for
    // the child is its own cwd (libuv chdirs before it execs).
    const path = resolve(options.cwd, entry, program);
    const candidate = inspectCandidate(path);
    if (candidate.kind === 'executable') return { ok: true, path };
    // execvp keeps searching after EACCES and only reports it when nothing later
    // in PATH can be run; the first refusal is the one a shell would name.
    if (candidate.kind === 'refused') firstRefusal ??= `cannot execute ${path}: ${candidate.why}`;
  }
  if (firstRefusal !== undefined) return { ok: false, code: EXIT_NOT_EXECUTABLE, reason: firstRefusal };
  const pathNote = options.path === undefined ? ` (PATH is unset, so the default ${searched})` : ` (PATH=${searched})`;
  return { ok: false, code: EXIT_NOT_FOUND, reason: `${program}: command not found in PATH${pathNote}` };
}

function inspectCandidate(path: string): Candidate {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    // EACCES on a directory in the way is a refusal for execvp too; anything
    // else (ENOENT, ENOTDIR, ELOOP, a dangling link) means "not here".
    return errorCode(error) === 'EACCES' ? { kind: 'refused', why: 'permission denied on a parent directory' } : { kind: 'missing' };
  }
  if (stats.isDirectory()) return { kind: 'refused', why: 'it is a directory' };
  if (!stats.isFile()) return { kind: 'refused', why: 'it is not a regular file' };
  try {
    // access(2) X_OK accounts for root (needs at least one x bit) and noexec mounts.
    accessSync(path, constants.X_OK);
    return { kind: 'executable' };
  } catch {
    return { kind: 'refused', why: 'no execute permission' };
  }
}

function checkWorkingDirectory(cwd: string): string | undefined {
  try {
    if (!statSync(cwd).isDirectory()) return `working directory ${cwd} is not a directory`;
    accessSync(cwd, constants.X_OK);
    return undefined;
  } catch (error) {
    return errorCode(error) === 'ENOENT'
      ? `working directory ${cwd} does not exist`
      : `working directory ${cwd} cannot be entered (${errorCode(error) ?? 'unknown error'})`;
  }
}

import process from 'node:process';
import { resolve } from 'node:path';
import type { SpawnRequest } from './child.ts';
import { EXIT_NOT_EXECUTABLE } from '../plan/exit-status.ts';
import type { EXIT_NOT_FOUND, ExitStatus } from '../plan/exit-status.ts';
import type { NativeSetupStep } from '../os/addon.ts';
import { explainExecFailure } from './explain-exec-failure.ts';
import { resolveProgram } from './resolve-program.ts';

// What every start of a process needs, whoever starts it (spawn.ts for
// long-lived children, src/attempt/run-command.ts for bounded commands): the
// program resolved as execvp would, the working directory, the environment and
// the user, so a sidecar, its exec probe and its hooks see the same.

export type SpawnFailed = ExitStatus & { readonly kind: 'spawn-failed' };

export interface PreparedSpawn {
  readonly ok: true;
  /** The file to execute: resolved through PATH here, so 126/127 are exact and named. */
  readonly file: string;
  /**
   * What execve is given for it, as execvp passes it: the name as written when
   * it has a slash (`./crash.sh`, relative to cwd, which the child enters
   * first), so a script's interpreter shows `/bin/sh ./crash.sh` in ps as
   * under tini; else the file found in PATH.
   */
  readonly execPath: string;
  readonly args: readonly string[];
  /** argv[0] as written (what execvp passes), so `ps` shows it and multi-call binaries like busybox dispatch on it. */
  readonly argv0: string;
  readonly cwd: string;
  /** The whole environment of the child: the supervisor's, HOME for its user, then its own. */
  readonly env: NodeJS.ProcessEnv;
  /** uid/gid: the addon (child-exec.c), as libuv does for execa's commands, clears supplementary groups (setgroups(0)), then setgid, setuid, before exec. */
  readonly ids: { readonly uid?: number; readonly gid?: number };
}

export type SpawnPreparation = PreparedSpawn | { readonly ok: false; readonly status: SpawnFailed };

export function prepareSpawn(request: Pick<SpawnRequest, 'command' | 'env' | 'cwd' | 'user'>): SpawnPreparation {
  const [program, ...args] = request.command;
  const cwd = resolve(request.cwd ?? process.cwd());
  const { user } = request;
  // HOME follows the user, as container runtimes set it; the process's own env still wins.
  const env: NodeJS.ProcessEnv = { ...process.env, ...(user?.home === undefined ? {} : { HOME: user.home }), ...request.env };
  // Resolving first makes 126/127 exact and named, instead of racing Node's
  // asynchronous ENOENT/EACCES that says neither which file nor which PATH.
  const resolved = resolveProgram(program, { path: env.PATH, cwd });
  if (!resolved.ok) return { ok: false, status: spawnFailed(resolved.code, resolved.reason) };
  const ids = user === undefined ? {} : { gid: user.gid, ...(user.uid === undefined ? {} : { uid: user.uid }) };
  const execPath = program.includes('/') ? program : resolved.path;
  return { ok: true, file: resolved.path, execPath, args, argv0: program, cwd, env, ids };
}

/**
 * Why `command` would not start with this env and cwd (a 127 or a 126, as
 * prepareSpawn tells a run), or undefined when it would: for `validate`.
 */
export function findStartProblem(request: Pick<SpawnRequest, 'command' | 'env' | 'cwd'>): string | undefined {
  const prepared = prepareSpawn({ ...request, user: undefined });
  return prepared.ok ? undefined : prepared.status.reason;
}

/**
 * Why a spawn that got no PID failed. Node says so only on a later tick, with an
 * error that names neither the file nor the cause; the program may have gone
 * meanwhile, or the user may not reach it. The addon's error (`addonError`) names
 * the step of the child's setup that failed: one before the exec is told as
 * that step with its errno, not blamed on the program.
 */
export function explainSpawnFailure(
  request: Pick<SpawnRequest, 'command' | 'user'>,
  prepared: PreparedSpawn,
  addonError?: unknown,
): SpawnFailed {
  const setup = explainSetupFailure(request, prepared, addonError);
  if (setup !== undefined) return spawnFailed(EXIT_NOT_EXECUTABLE, setup);
  const again = resolveProgram(request.command[0], { path: prepared.env.PATH, cwd: prepared.cwd });
  if (!again.ok) return spawnFailed(again.code, again.reason);
  const failure = explainExecFailure(prepared.file, prepared.cwd, request.user);
  return spawnFailed(failure.code, failure.reason);
}

/** What each step before the exec was doing (src/os/native/child-exec.c), for the reason. */
const SETUP_STEPS: Readonly<Record<Exclude<NativeSetupStep, 'exec'>, (prepared: PreparedSpawn) => string>> = {
  pipes: () => 'its output pipes could not be put in place',
  stdin: () => 'its stdin could not be opened from /dev/null (does this root have /dev/null?)',
  cwd: (prepared) => `its working directory ${prepared.cwd} could not be entered`,
  setgid: (prepared) => `it could not take gid ${prepared.ids.gid} (setgid; sidecar-init needs to be root, or CAP_SETGID, to change it)`,
  setuid: (prepared) => `it could not take uid ${prepared.ids.uid} (setuid; sidecar-init needs to be root, or CAP_SETUID, to change it)`,
};

function explainSetupFailure(request: Pick<SpawnRequest, 'command'>, prepared: PreparedSpawn, failure: unknown): string | undefined {
  if (!(failure instanceof Error && 'syscall' in failure && typeof failure.syscall === 'string')) return undefined;
  if (!Object.hasOwn(SETUP_STEPS, failure.syscall)) return undefined;
  const step = SETUP_STEPS[failure.syscall as keyof typeof SETUP_STEPS];
  const code = 'code' in failure && typeof failure.code === 'string' ? failure.code : 'an unknown error';
  return `cannot start ${request.command[0]}: ${step(prepared)}: ${systemMessage(failure.message)} (${code})`;
}

/** The system's words for the errno in the addon's "STEP failed: WORDS (CODE, errno N)". */
function systemMessage(message: string): string {
  return message.match(/failed: (.*) \([A-Z0-9]+, errno \d+\)$/)?.[1] ?? message;
}

function spawnFailed(code: typeof EXIT_NOT_FOUND | typeof EXIT_NOT_EXECUTABLE, reason: string): SpawnFailed {
  return { kind: 'spawn-failed', code, reason };
}

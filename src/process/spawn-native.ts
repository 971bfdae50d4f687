import type { Child, SpawnRequest, SpawnResult } from './child.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import { addNativeChild, removeNativeChild } from './child-registry.ts';
import { explainSpawnFailure } from './prepare-spawn.ts';
import type { PreparedSpawn } from './prepare-spawn.ts';
import { sendSignal } from './send-signal.ts';
import { sweepProcessGroup } from './sweep-group.ts';

// The long-lived children the addon forks (src/process/native/spawn.c, and
// the app on a terminal, terminal.c): every one whose stdio needs no pipe.
// libuv knows none of them; the reaper's pass reaps each and hands its status
// to the callback registered in nativeChildren (child-registry.ts).

/** The addon's fork and exec of a child in a session of its own (spawn.c). */
export interface NativeSpawnApi {
  /** Its pid once exec has succeeded; throws an Error whose code is the errno name (ENOENT, EACCES) and whose syscall is the step that failed. uid/gid -1: unchanged. */
  spawnChild(path: string, argv: string[], envp: string[], cwd: string, uid: number, gid: number, nullStdin: boolean): number;
}

/** A child that leads a group ('session', 'own': its pid is the group's id) or was born in the caller's group ('caller'). */
export type NativeChildGroup = 'session' | 'own' | 'caller';

/** Long enough never to fire in practice; it only holds the event loop open. */
const KEEP_ALIVE_MS = 2 ** 30;

/** Sidecars, init steps and the app when no pipe is needed ('inherit' or 'output', no readiness fd): forked by the addon, in a session of its own. */
export function spawnNatively(api: NativeSpawnApi, request: SpawnRequest, prepared: PreparedSpawn): SpawnResult {
  const { file, args, argv0, cwd, env, ids } = prepared;
  let pid: number;
  try {
    pid = api.spawnChild(file, [argv0, ...args], toEnvp(env), cwd, ids.uid ?? -1, ids.gid ?? -1, request.stdio === 'output');
  } catch (error) {
    // A system call's failure (the addon's errors carry the call), explained as child_process's is.
    if (!(error instanceof Error && 'syscall' in error)) throw error;
    return { ok: false, status: explainSpawnFailure(request, prepared) };
  }
  return { ok: true, child: watchNativeChild(pid, 'session') };
}

/** KEY=value for each variable set, as execve takes the environment. */
export function toEnvp(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${value}`);
}

/**
 * The Child of a pid the addon forked, registered in nativeChildren in the
 * same tick the fork returned it: the SIGCHLD of its exit is handled on a
 * later turn of the loop. `onExit` runs first when the reaper reports it.
 */
export function watchNativeChild(pid: number, group: NativeChildGroup, onExit?: () => void): Child {
  let running = true;
  // libuv holds no handle for this child, and signal listeners do not keep
  // Node's loop alive: this timer does, until the reaper reports the exit.
  const keepAlive = setInterval(ignore, KEEP_ALIVE_MS);
  const exited = new Promise<ExitStatus>((resolve) => {
    addNativeChild(pid, (status) => {
      running = false;
      removeNativeChild(pid);
      clearInterval(keepAlive);
      onExit?.();
      resolve(status);
    });
  });
  const leads = group !== 'caller';
  return {
    pid,
    exited,
    // Its output is inherited, never piped: done when it exits.
    outputDone: exited.then(() => undefined),
    // In the caller's group it leads no group: its pid names none (and, once it is gone, may name another's).
    signal: (signal, scope = 'group') => sendSignal(pid, signal, leads ? scope : 'process', running),
    forwardTarget: (scope) => (leads && scope === 'group' ? -pid : pid),
    // After the exit, so the leader itself is never signalled here; its pid is the group's id. The caller's group is not ours to sweep.
    sweepGroup: (graceMs, abort) => exited.then(() => (leads ? sweepProcessGroup(pid, graceMs, abort) : 'empty')),
  };
}

function ignore(): void {}

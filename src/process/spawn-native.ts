import type { Readable } from 'node:stream';
import type { Child, SpawnRequest, SpawnResult } from './child.ts';
import type { SpawnApi } from '../os/addon.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import { addNativeChild, removeNativeChild } from './child-registry.ts';
import { explainSpawnFailure } from './prepare-spawn.ts';
import type { PreparedSpawn } from './prepare-spawn.ts';
import { sendSignal } from './send-signal.ts';
import { sweepProcessGroup } from './sweep-group.ts';

// Every long-lived child is forked by the addon (src/os/native/spawn.c,
// and the app on a terminal, terminal.c); this file starts those whose stdio
// needs no pipe, spawn-piped.ts those whose output or readiness fd does.
// libuv knows none of them; the reaper's pass reaps each and hands its status
// to the callback registered in nativeChildren (child-registry.ts).

/** A child that leads a group ('session', 'own': its pid is the group's id) or was born in the caller's group ('caller'). */
export type NativeChildGroup = 'session' | 'own' | 'caller';

/** What a child has beyond its pid and group, for watchNativeChild. */
export interface NativeChildExtras {
  /** Runs first when the reaper reports the exit. */
  readonly onExit?: () => void;
  /** Resolves when its piped output has closed; without it, output is inherited and done at the exit. */
  readonly outputClosed?: Promise<void>;
  readonly readinessPipe?: Readable | undefined;
}

/** Long enough never to fire in practice; it only holds the event loop open. */
const KEEP_ALIVE_MS = 2 ** 30;

/** Sidecars, init steps and the app when no pipe is needed ('inherit' or 'output', no readiness fd): forked by the addon, in a session of its own. */
export function spawnNatively(api: SpawnApi, request: SpawnRequest, prepared: PreparedSpawn): SpawnResult {
  const spawned = forkChild(api, request, prepared, []);
  if (!spawned.ok) return spawned;
  return { ok: true, child: watchNativeChild(spawned.pid, 'session') };
}

/**
 * The addon's fork of request with a pipe at each descriptor of pipeTo; stdin
 * from /dev/null unless the mode inherits it ('inherit', 'inherit-tee'). A
 * failed exec is explained as every spawn's is, with 126 or 127.
 */
export function forkChild(
  api: SpawnApi,
  request: SpawnRequest,
  prepared: PreparedSpawn,
  pipeTo: readonly number[],
): { readonly ok: true; readonly pid: number; readonly pipes: readonly number[] } | Extract<SpawnResult, { ok: false }> {
  const { execPath, args, argv0, cwd, env, ids } = prepared;
  const nullStdin = request.stdio !== 'inherit' && request.stdio !== 'inherit-tee';
  try {
    const { pid, pipes } = api.spawnChild({
      path: execPath,
      argv: [argv0, ...args],
      envp: toEnvp(env),
      cwd,
      uid: ids.uid ?? -1,
      gid: ids.gid ?? -1,
      nullStdin,
      pipeTo,
    });
    return { ok: true, pid, pipes };
  } catch (error) {
    // A system call's failure (the addon's errors carry the call): the child's failure to start, not PID 1's.
    if (!(error instanceof Error && 'syscall' in error)) throw error;
    return { ok: false, status: explainSpawnFailure(request, prepared, error) };
  }
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
 * later turn of the loop.
 */
export function watchNativeChild(pid: number, group: NativeChildGroup, extras: NativeChildExtras = {}): Child {
  let running = true;
  // libuv holds no handle for this child, and signal listeners do not keep
  // Node's loop alive: this timer does, until the reaper reports the exit.
  const keepAlive = setInterval(ignore, KEEP_ALIVE_MS);
  const exited = new Promise<ExitStatus>((resolve) => {
    addNativeChild(pid, (status) => {
      running = false;
      removeNativeChild(pid);
      clearInterval(keepAlive);
      extras.onExit?.();
      resolve(status);
    });
  });
  const leads = group !== 'caller';
  return {
    pid,
    exited,
    // Inherited output is done when it exits; piped output once its pipes have closed too.
    outputDone: Promise.all([exited, extras.outputClosed]).then(() => undefined),
    // In the caller's group it leads no group: its pid names none (and, once it is gone, may name another's).
    signal: (signal, scope = 'group') => sendSignal(pid, signal, leads ? scope : 'process', running),
    forwardTarget: (scope) => (leads && scope === 'group' ? -pid : pid),
    // After the exit, so the leader itself is never signalled here; its pid is the group's id. The caller's group is not ours to sweep.
    sweepGroup: (graceMs, abort) => exited.then(() => (leads ? sweepProcessGroup(pid, graceMs, abort) : 'empty')),
    readinessPipe: extras.readinessPipe,
  };
}

function ignore(): void {}

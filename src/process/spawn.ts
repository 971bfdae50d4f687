import type { SpawnRequest, SpawnResult, Spawner } from './child.ts';
import { prepareSpawn } from './prepare-spawn.ts';
import type { PreparedSpawn } from './prepare-spawn.ts';
import { explainSpawnFailure } from './prepare-spawn.ts';
import { spawnNatively, watchNativeChild } from './spawn-native.ts';
import type { SpawnApi } from '../os/addon.ts';
import type { spawnWithPipes } from './spawn-piped.ts';
import type { ForegroundTerminal } from './terminal.ts';

// The place that starts long-lived processes (sidecars, init steps, the app).
// What a supervisor needs of a child that lives as long as the pod (a pid, an
// exit, signals on our terms) the addon gives: it forks every one of them
// (src/os/native/spawn.c), and the reaper reaps them all, so one reaper
// owns every long-lived child and libuv none. A child whose stdio needs no
// pipe is started by spawn-native.ts. Output that passes through
// sidecar-init (prefixed, teed to a log probe, captured) and an fd:N
// readiness pipe are pipes the addon makes too; their reading (spawn-piped.ts,
// net and the streams) is loaded only for a plan that has them, as node's
// child_process is never: it would bring net, dgram and the streams, each
// compiled from source at every start under --jitless. Bounded commands (exec
// probes and hooks) run through execa instead (src/attempt/run-command.ts),
// loaded on first use, and those alone are libuv's children.
// Children's output goes straight to the container log, byte for byte and at
// no cost (inherited stdout measured at 2.6 GB/s, docs/architecture.md),
// unless the process asks for it to be prefixed, teed to a log probe or
// captured. Every path resolves the program first (prepare-spawn.ts) and
// explains a failed exec the same way, with 126 or 127.

/** The two registries of children (child-registry.ts), re-exported for main.ts, which hands them to the reaper. */
export { libuvChildren, nativeChildren } from './child-registry.ts';

export interface SpawnerOptions {
  /** The addon's fork and exec. */
  readonly native: SpawnApi;
  /** The controlling terminal, when sidecar-init holds it: the app (stdio 'inherit') becomes its foreground group. */
  readonly terminal?: ForegroundTerminal | undefined;
  /**
   * Whether any request will need a pipe (piped output or a readiness fd):
   * only then is their reader (spawn-piped.ts: net, the streams) loaded. A
   * request that needs one from a spawner created without is a bug, and throws.
   */
  readonly pipes: boolean;
}

type PipedSpawn = typeof spawnWithPipes;

export async function createSpawner(options: SpawnerOptions): Promise<Spawner> {
  const { native, terminal } = options;
  const piped: PipedSpawn = options.pipes ? (await import('./spawn-piped.ts')).spawnWithPipes : noPipes;
  return { spawn: (request) => spawnChild(request, native, terminal, piped) };
}

/** Whether a request's stdio needs a pipe to sidecar-init: then spawn-piped.ts starts it. */
export function needsPipes(request: Pick<SpawnRequest, 'stdio' | 'readinessFd'>): boolean {
  return request.readinessFd !== undefined || (request.stdio !== 'inherit' && request.stdio !== 'output');
}

function spawnChild(request: SpawnRequest, native: SpawnApi, terminal: ForegroundTerminal | undefined, piped: PipedSpawn): SpawnResult {
  const prepared = prepareSpawn(request);
  if (!prepared.ok) return prepared;
  if (needsPipes(request)) return piped(native, request, prepared);
  // Only sidecars have readiness, so the app on a terminal never has a readiness fd.
  if (terminal !== undefined && request.stdio === 'inherit') {
    const onTerminal = spawnForeground(terminal, request, prepared);
    if (onTerminal !== undefined) return onTerminal;
  }
  return spawnNatively(native, request, prepared);
}

/**
 * The app on the terminal: forked by the native part, reaped by the reaper
 * (nativeChildren), the terminal given back at its exit. Undefined when the
 * terminal cannot be handed to it (terminal.ts): then it is spawned as usual.
 */
function spawnForeground(terminal: ForegroundTerminal, request: SpawnRequest, prepared: PreparedSpawn): SpawnResult | undefined {
  const { execPath, args, argv0, cwd, env, ids } = prepared;
  let spawned: ReturnType<ForegroundTerminal['spawn']>;
  try {
    spawned = terminal.spawn(
      execPath,
      [argv0, ...args],
      env,
      cwd,
      ids.gid === undefined ? undefined : { gid: ids.gid, ...(ids.uid === undefined ? {} : { uid: ids.uid }) },
    );
  } catch (error) {
    // A system call's failure (the addon's errors carry the call), explained as every other spawn's is.
    if (!(error instanceof Error && 'syscall' in error)) throw error;
    return { ok: false, status: explainSpawnFailure(request, prepared, error) };
  }
  if (spawned === undefined) return undefined;
  return { ok: true, child: watchNativeChild(spawned.pid, spawned.group, { onExit: () => terminal.reclaim() }) };
}

function noPipes(_native: SpawnApi, request: SpawnRequest): never {
  throw new Error(
    `${request.name}: a spawn with stdio '${request.stdio}'${request.readinessFd === undefined ? '' : ` and readiness fd ${request.readinessFd}`} needs a pipe, but the spawner was created without pipes (a bug: the plan said no process needs one)`,
  );
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { Spawner } from '../../src/process/child.ts';
import { loadNativeProcessApi } from '../../src/os/native.ts';
import { isAlive } from '../../src/os/proc-table.ts';
import { createReaper } from '../../src/process/reaper.ts';
import type { Reaper } from '../../src/process/reaper.ts';
import { createSpawner, libuvChildren, nativeChildren } from '../../src/process/spawn.ts';

/**
 * Per test: a fresh spawner and temp directory, and the PIDs that must be gone
 * when the test ends. Per file, the reaper, as a run has one: every child the
 * spawner starts is the addon's and reaped by it; only execa's are libuv's.
 */
export interface ProcessSandbox {
  readonly spawner: Spawner;
  readonly workDir: string;
  /** PIDs the test started or was told about (grandchildren included); each must be gone by afterEach. */
  track(...pids: number[]): void;
}

export interface ProcessSandboxOptions {
  /** Also assert that no PID is left owned after the test (libuv's or the addon's), i.e. every exit it started was reported. */
  readonly expectNoOwnedPids?: boolean;
}

interface SandboxState {
  readonly spawner: Spawner;
  readonly workDir: string;
  readonly trackedPids: number[];
}

/**
 * Registers beforeEach/afterEach in the calling scope (file or describe). afterEach
 * kills survivors by PID before asserting there were none, so one failing test
 * does not leave a `sleep 300` behind for the rest of the run.
 *
 * @param prefix the temp directory's name prefix, e.g. `'spawn-test-'`
 */
export function useProcessSandbox(prefix: string, options: ProcessSandboxOptions = {}): ProcessSandbox {
  let state: SandboxState | undefined;
  let reaper: Reaper | undefined;

  beforeAll(() => {
    reaper = createReaper({ native: loadNativeProcessApi(), libuvChildren, nativeChildren });
    reaper.start();
  });
  afterAll(() => reaper?.stop());

  beforeEach(async () => {
    const spawner = await createSpawner({ native: loadNativeProcessApi(), pipes: true });
    state = { spawner, workDir: await mkdtemp(join(tmpdir(), prefix)), trackedPids: [] };
  });

  afterEach(async () => {
    // Undefined when beforeEach itself failed; vitest runs afterEach anyway.
    if (state === undefined) return;
    const { workDir, trackedPids } = state;
    state = undefined;
    const survivors = trackedPids.filter(isAlive);
    for (const pid of survivors) killQuietly(pid);
    await rm(workDir, { recursive: true, force: true });
    expect(survivors).toEqual([]);
    if (options.expectNoOwnedPids === true) expect([...libuvChildren, ...nativeChildren.keys()]).toEqual([]);
  });

  const current = (): SandboxState => {
    if (state === undefined) throw new Error(`process sandbox '${prefix}' used outside a test`);
    return state;
  };
  return {
    get spawner() {
      return current().spawner;
    },
    get workDir() {
      return current().workDir;
    },
    track(...pids) {
      current().trackedPids.push(...pids);
    },
  };
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    // It may exit between the /proc check and the kill.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

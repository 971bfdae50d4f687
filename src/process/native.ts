import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ExitStatus } from './exit-status.ts';

/** The two syscalls behind the reaper (src/process/native/reaper.c). */
export interface NativeProcessApi {
  /** prctl(PR_SET_CHILD_SUBREAPER, 1): orphans of our descendants are re-parented to us. */
  setChildSubreaper(): void;
  /** waitpid(pid, WNOHANG) on that one pid: its raw wait status, or undefined while it runs or when it is not our child. */
  reapPid(pid: number): number | undefined;
  /**
   * _exit(code): ends the process without atexit handlers, so a thread-pool
   * write stuck on a stalled log pipe cannot hold the exit. Only after every
   * line of our own has been written (they are written synchronously).
   */
  exitNow(code: number): never;
}

export const NATIVE_ADDON_ENV = 'SIDECAR_INIT_NATIVE_ADDON';

// Relative to this module: the bundle (dist/sidecar-init.mjs) has the addon
// beside it in dist/native/; sources run from src/process/ and use the build's.
const ADDON_CANDIDATES = ['./native/reaper.node', '../../dist/native/reaper.node'];
const BUILD_HINT = 'build it with `npm run build` (or `node scripts/build-native.mjs`)';

export class NativeAddonError extends Error {
  readonly code = 'ERR_NATIVE_ADDON';
}

const loadedByPath = new Map<string, NativeProcessApi>();

/** Loads the addon once per path: $SIDECAR_INIT_NATIVE_ADDON if set, else the first candidate that exists. */
export function loadNativeProcessApi(env: NodeJS.ProcessEnv = process.env): NativeProcessApi {
  const path = findAddon(env);
  let api = loadedByPath.get(path);
  if (api === undefined) {
    api = loadAddon(path);
    loadedByPath.set(path, api);
  }
  return api;
}

function findAddon(env: NodeJS.ProcessEnv): string {
  const override = env[NATIVE_ADDON_ENV];
  if (override !== undefined && override !== '') {
    if (!existsSync(override)) throw new NativeAddonError(`${NATIVE_ADDON_ENV}=${override}: no such file; ${BUILD_HINT}`);
    return override;
  }
  const candidates = ADDON_CANDIDATES.map((candidate) => fileURLToPath(new URL(candidate, import.meta.url)));
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found === undefined) {
    throw new NativeAddonError(
      `native reaper addon not found (looked for ${candidates.join(', ')}); ${BUILD_HINT}, or set ${NATIVE_ADDON_ENV}`,
    );
  }
  return found;
}

function loadAddon(path: string): NativeProcessApi {
  const module = { exports: {} as Record<string, unknown> };
  try {
    process.dlopen(module, path);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new NativeAddonError(`could not load native reaper addon ${path}: ${reason}; re${BUILD_HINT}`, { cause });
  }
  const { setChildSubreaper, reapPid, exitNow } = module.exports;
  if (typeof setChildSubreaper !== 'function' || typeof reapPid !== 'function' || typeof exitNow !== 'function') {
    throw new NativeAddonError(`${path} is not the reaper addon (no setChildSubreaper/reapPid/exitNow); re${BUILD_HINT}`);
  }
  return module.exports as unknown as NativeProcessApi;
}

// Linux <sys/wait.h> layout: the low 7 bits hold the terminating signal (0 when
// the process exited, 0x7f for stopped/continued), bits 8-15 the exit code,
// bit 7 the core-dump flag.
const WAIT_SIGNAL_MASK = 0x7f;
const WAIT_STOPPED = 0x7f;
const WAIT_CODE_SHIFT = 8;
const WAIT_CODE_MASK = 0xff;
const SIGNAL_EXIT_BASE = 128;

// First name wins for aliases (SIGABRT before SIGIOT, SIGIO before SIGPOLL).
const SIGNAL_NAMES = new Map<number, NodeJS.Signals>();
for (const [name, number] of Object.entries(constants.signals)) {
  if (!SIGNAL_NAMES.has(number)) SIGNAL_NAMES.set(number, name as NodeJS.Signals);
}

/** WIFEXITED → exited with WEXITSTATUS; WIFSIGNALED → signaled with Node's name for WTERMSIG. */
export function decodeWaitStatus(raw: number): ExitStatus {
  const signal = raw & WAIT_SIGNAL_MASK;
  if (signal === 0) return { kind: 'exited', code: (raw >> WAIT_CODE_SHIFT) & WAIT_CODE_MASK };
  if (signal === WAIT_STOPPED) {
    throw new RangeError(`wait status ${raw} is a stop or continue, not an exit; reapPid never asks for those`);
  }
  const name = SIGNAL_NAMES.get(signal);
  // Real-time signals have no Node name and ExitStatus has no variant for them;
  // report what a shell would ($? = 128+N) rather than throw inside the reaper.
  if (name === undefined) return { kind: 'exited', code: SIGNAL_EXIT_BASE + signal };
  return { kind: 'signaled', signal: name };
}

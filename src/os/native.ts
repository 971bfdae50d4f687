import { statSync } from 'node:fs';
import { isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import { EmbeddedAddonError, loadEmbeddedAddon } from './embedded-addon.ts';
import type { ExitStatus } from '../plan/exit-status.ts';
import { signalOfNumber } from '../plan/signal-sets.ts';
import { ADDON_FUNCTIONS, type Addon } from './addon.ts';

export const NATIVE_ADDON_ENV = 'SIDECAR_INIT_NATIVE_ADDON';

// The platforms a prebuilt addon exists for. Anything else is refused before
// the first process starts, rather than failing on a cryptic dlopen error.
const SUPPORTED_ARCHES: readonly string[] = ['x64', 'arm64'];
const SUPPORTED = 'sidecar-init runs on Linux x64 and arm64 with glibc';
const BUILD_HINT = 'build it with `npm run build` (or `node scripts/build-native.mjs`)';

export class NativeAddonError extends Error {
  readonly code = 'ERR_NATIVE_ADDON';
}

const loadedByPath = new Map<string, Addon>();
/** The single executable's addon, or why it could not be loaded: tried once per process, so it is written once per start. */
let embedded: Addon | NativeAddonError | undefined;

/**
 * Loads the addon once per path: $SIDECAR_INIT_NATIVE_ADDON if set; in the
 * single executable, its embedded copy; else the file beside the bundle.
 * Throws NativeAddonError with one line saying what failed and what to do.
 */
export function loadNativeProcessApi(env: NodeJS.ProcessEnv = process.env): Addon {
  return loadNativeAddon(env).api;
}

/**
 * Where a loaded addon came from, for `sidecar-init version`: a file, or the
 * single executable's embedded copy (embeddedAddon()), whose bytes are exactly
 * those of the file dlopen was given: embedded-addon.ts checks them through
 * the descriptor it loads.
 */
export type AddonOrigin = { readonly kind: 'file'; readonly path: string } | { readonly kind: 'embedded' };

/** loadNativeProcessApi, and where the addon it loaded came from. */
export function loadNativeAddon(env: NodeJS.ProcessEnv = process.env): { readonly api: Addon; readonly origin: AddonOrigin } {
  const override = env[NATIVE_ADDON_ENV];
  if (override !== undefined && override !== '') {
    if (!isPresent(override)) throw new NativeAddonError(`${NATIVE_ADDON_ENV}=${override}: no such file; ${BUILD_HINT}`);
    const api = loadOnce(override, (error) => `could not load native reaper addon ${override}: ${error}; re${BUILD_HINT}`);
    return { api, origin: { kind: 'file', path: override } };
  }
  const platform = `${process.platform}-${process.arch}`;
  if (process.platform !== 'linux' || !SUPPORTED_ARCHES.includes(process.arch)) {
    throw new NativeAddonError(`${SUPPORTED}; this is ${platform}`);
  }
  if (isSea()) return { api: loadEmbeddedOnce(env), origin: { kind: 'embedded' } };
  // Relative to this module: the bundle (dist/sidecar-init.cjs) has the addon
  // beside it in dist/native/; sources run from src/os/ and use the build's.
  const name = `reaper-${platform}.node`;
  const candidates = [`./native/${name}`, `../../dist/native/${name}`].map((path) => fileURLToPath(new URL(path, import.meta.url)));
  const found = candidates.find((candidate) => isPresent(candidate));
  if (found === undefined) {
    throw new NativeAddonError(
      `native reaper addon not found (looked for ${candidates.join(', ')}); ${BUILD_HINT}, or set ${NATIVE_ADDON_ENV}`,
    );
  }
  const api = loadOnce(found, (error) => `could not load native reaper addon ${found}: ${error}; re${BUILD_HINT}`);
  return { api, origin: { kind: 'file', path: found } };
}

/**
 * stat, not existsSync: existsSync is access(2), which checks with the real uid
 * and drops capabilities, so a sidecar-init started as another user with only
 * CAP_DAC_READ_SEARCH (to reach a checkout in a private folder) would not see an
 * addon it can load.
 */
function isPresent(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined;
}

/** The addon if one was loaded already (the exit uses it), without loading or writing anything. */
export function loadedNativeProcessApi(): Addon | undefined {
  if (embedded !== undefined) return embedded instanceof NativeAddonError ? undefined : embedded;
  return loadedByPath.values().next().value;
}

function loadEmbeddedOnce(env: NodeJS.ProcessEnv): Addon {
  if (embedded === undefined) {
    try {
      embedded = loadEmbeddedAddon((path) => loadAddon(path, (error) => error), env, process.execPath);
    } catch (error) {
      if (!(error instanceof EmbeddedAddonError || error instanceof NativeAddonError)) throw error;
      embedded = new NativeAddonError(error.message, { cause: error });
    }
  }
  if (embedded instanceof NativeAddonError) throw embedded;
  return embedded;
}

function loadOnce(path: string, describe: (error: string) => string): Addon {
  let api = loadedByPath.get(path);
  if (api === undefined) {
    api = loadAddon(path, describe);
    loadedByPath.set(path, api);
  }
  return api;
}

function loadAddon(path: string, describe: (error: string) => string): Addon {
  const module = { exports: {} as Record<string, unknown> };
  try {
    process.dlopen(module, path);
  } catch (cause) {
    if (isMusl())
      throw new NativeAddonError(`${SUPPORTED}; this Node uses musl libc: use a glibc-based image such as debian:bookworm-slim`);
    throw new NativeAddonError(describe(cause instanceof Error ? cause.message : String(cause)), { cause });
  }
  const missing = Object.values(ADDON_FUNCTIONS)
    .flat()
    .filter((name) => typeof module.exports[name] !== 'function');
  if (missing.length > 0)
    throw new NativeAddonError(describe(`not sidecar-init's addon, or an older build of it (no ${missing.join(', ')})`));
  return module.exports as unknown as Addon;
}

/** Only asked after a failed load: the report costs milliseconds that a normal start should not pay. */
function isMusl(): boolean {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header !== undefined && header.glibcVersionRuntime === undefined;
}

// Linux <sys/wait.h> layout: the low 7 bits hold the terminating signal (0 when
// the process exited, 0x7f for stopped/continued), bits 8-15 the exit code,
// bit 7 the core-dump flag.
const WAIT_SIGNAL_MASK = 0x7f;
const WAIT_STOPPED = 0x7f;
const WAIT_CODE_SHIFT = 8;
const WAIT_CODE_MASK = 0xff;
const SIGNAL_EXIT_BASE = 128;

/** WIFEXITED → exited with WEXITSTATUS; WIFSIGNALED → signaled with Node's name for WTERMSIG. */
export function decodeWaitStatus(raw: number): ExitStatus {
  const signal = raw & WAIT_SIGNAL_MASK;
  if (signal === 0) return { kind: 'exited', code: (raw >> WAIT_CODE_SHIFT) & WAIT_CODE_MASK };
  if (signal === WAIT_STOPPED) {
    throw new RangeError(`wait status ${raw} is a stop or continue, not an exit; reapPid never asks for those`);
  }
  const name = signalOfNumber(signal);
  // Real-time signals have no Node name and ExitStatus has no variant for them;
  // report what a shell would ($? = 128+N) rather than throw inside the reaper.
  if (name === undefined) return { kind: 'exited', code: SIGNAL_EXIT_BASE + signal };
  return { kind: 'signaled', signal: name };
}

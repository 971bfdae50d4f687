import { lstatSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { getAsset, isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import type { ExitStatus } from './exit-status.ts';

/** The syscalls behind the reaper (src/process/native/reaper.c). */
export interface NativeProcessApi {
  /** prctl(PR_SET_CHILD_SUBREAPER, 1): orphans of our descendants are re-parented to us. */
  setChildSubreaper(): void;
  /** waitpid(pid, WNOHANG) on that one pid: its raw wait status, or undefined while it runs or when it is not our child. */
  reapPid(pid: number): number | undefined;
  /**
   * waitid(P_ALL, WEXITED | WNOHANG | WNOWAIT): the pid of one exited child,
   * not reaped (its status stays for whoever owns it), or undefined when none.
   */
  peekZombie(): number | undefined;
  /**
   * _exit(code): ends the process without atexit handlers, so a thread-pool
   * write stuck on a stalled log pipe cannot hold the exit. Only after every
   * line of our own has been written (they are written synchronously).
   */
  exitNow(code: number): never;
}

export const NATIVE_ADDON_ENV = 'SIDECAR_INIT_NATIVE_ADDON';
/** Where the single executable writes its embedded addon, before the usual places (see extractDirs). */
export const NATIVE_DIR_ENV = 'SIDECAR_INIT_NATIVE_DIR';
/** The single executable's asset holding the addon (scripts/build-binary.mjs). */
export const ADDON_ASSET = 'reaper.node';

// The platforms a prebuilt addon exists for. Anything else is refused before
// the first process starts, rather than failing on a cryptic dlopen error.
const SUPPORTED_ARCHES: readonly string[] = ['x64', 'arm64'];
const SUPPORTED = 'sidecar-init runs on Linux x64 and arm64 with glibc';
const BUILD_HINT = 'build it with `npm run build` (or `node scripts/build-native.mjs`)';

export class NativeAddonError extends Error {
  readonly code = 'ERR_NATIVE_ADDON';
}

const loadedByPath = new Map<string, NativeProcessApi>();

/**
 * Loads the addon once per path: $SIDECAR_INIT_NATIVE_ADDON if set; in the
 * single executable, its embedded copy; else the file beside the bundle.
 * Throws NativeAddonError with one line saying what failed and what to do.
 */
export function loadNativeProcessApi(env: NodeJS.ProcessEnv = process.env): NativeProcessApi {
  const override = env[NATIVE_ADDON_ENV];
  if (override !== undefined && override !== '') {
    if (!isPresent(override)) throw new NativeAddonError(`${NATIVE_ADDON_ENV}=${override}: no such file; ${BUILD_HINT}`);
    return loadOnce(override, (error) => `could not load native reaper addon ${override}: ${error}; re${BUILD_HINT}`);
  }
  const platform = `${process.platform}-${process.arch}`;
  if (process.platform !== 'linux' || !SUPPORTED_ARCHES.includes(process.arch)) {
    throw new NativeAddonError(`${SUPPORTED}; this is ${platform}`);
  }
  if (isSea()) return loadEmbedded(env);
  // Relative to this module: the bundle (dist/sidecar-init.cjs) has the addon
  // beside it in dist/native/; sources run from src/process/ and use the build's.
  const name = `reaper-${platform}.node`;
  const candidates = [`./native/${name}`, `../../dist/native/${name}`].map((path) => fileURLToPath(new URL(path, import.meta.url)));
  const found = candidates.find((candidate) => isPresent(candidate));
  if (found === undefined) {
    throw new NativeAddonError(
      `native reaper addon not found (looked for ${candidates.join(', ')}); ${BUILD_HINT}, or set ${NATIVE_ADDON_ENV}`,
    );
  }
  return loadOnce(found, (error) => `could not load native reaper addon ${found}: ${error}; re${BUILD_HINT}`);
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

/**
 * The single executable carries the addon as an asset, and dlopen needs a file
 * on an exec-mounted filesystem. Node offers no memfd_create, and /dev/shm is
 * mounted noexec by Docker, podman and containerd, so the addon is written,
 * content-addressed and owned by us, into the first directory where it loads:
 * $SIDECAR_INIT_NATIVE_DIR, /dev/shm, $XDG_RUNTIME_DIR, $TMPDIR, /tmp, /var/tmp.
 * A later start finds its file already there (same bytes, our uid) and writes
 * nothing, so a read-only root with a writable /tmp, or any exec tmpfs, is enough.
 */
function loadEmbedded(env: NodeJS.ProcessEnv): NativeProcessApi {
  const bytes = new Uint8Array(getAsset(ADDON_ASSET));
  const failures: string[] = [];
  for (const dir of extractDirs(env)) {
    const file = `${dir}/sidecar-init-${process.getuid?.() ?? 0}-${fingerprint(bytes)}.node`;
    let stage = 'write';
    try {
      placeAddon(file, bytes);
      stage = 'load';
      return loadOnce(file, (error) => error);
    } catch (error) {
      failures.push(
        `${dir}: ${stage === 'load' ? describeLoadFailure(String(error instanceof Error ? error.message : error)) : describeFsError(error)}`,
      );
    }
  }
  throw new NativeAddonError(
    `cannot load the embedded native reaper addon: it needs a writable directory not mounted noexec (${failures.join('; ')}); ` +
      `mount one (e.g. an emptyDir at /tmp) or set ${NATIVE_DIR_ENV}=DIR`,
  );
}

function extractDirs(env: NodeJS.ProcessEnv): string[] {
  const dirs = [env[NATIVE_DIR_ENV], '/dev/shm', env.XDG_RUNTIME_DIR, env.TMPDIR, '/tmp', '/var/tmp'];
  return [...new Set(dirs.filter((dir): dir is string => dir !== undefined && dir !== '').map((dir) => dir.replace(/\/+$/, '') || '/'))];
}

/** A short content address: FNV-1a over the bytes (no crypto module to load at start). */
function fingerprint(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return `${bytes.length.toString(16)}-${hash.toString(16).padStart(8, '0')}`;
}

/**
 * Reuses `file` only if it is a regular file of our uid (or root), writable by
 * no one else, with exactly our bytes; then nobody else can change it before
 * dlopen maps it. Otherwise writes it beside and renames it into place, so a
 * concurrent start sees the old file or the new one, never half of one.
 */
function placeAddon(file: string, bytes: Uint8Array): void {
  const uid = process.getuid?.() ?? 0;
  let existing: ReturnType<typeof lstatSync> | undefined;
  try {
    existing = lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (existing !== undefined) {
    const trusted = existing.isFile() && (existing.uid === uid || existing.uid === 0) && (Number(existing.mode) & 0o022) === 0;
    if (trusted && Number(existing.size) === bytes.length && Buffer.from(bytes).equals(readFileSync(file))) return;
  }
  const partial = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, bytes, { flag: 'wx', mode: 0o555 });
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EROFS') return 'read-only';
  if (code === 'EACCES' || code === 'EPERM') return 'not writable';
  if (code === 'ENOENT') return 'missing';
  return code ?? String(error);
}

function describeLoadFailure(message: string): string {
  if (/failed to map segment|operation not permitted/i.test(message)) return 'mounted noexec';
  return message;
}

function loadOnce(path: string, describe: (error: string) => string): NativeProcessApi {
  let api = loadedByPath.get(path);
  if (api === undefined) {
    api = loadAddon(path, describe);
    loadedByPath.set(path, api);
  }
  return api;
}

function loadAddon(path: string, describe: (error: string) => string): NativeProcessApi {
  const module = { exports: {} as Record<string, unknown> };
  try {
    process.dlopen(module, path);
  } catch (cause) {
    if (isMusl())
      throw new NativeAddonError(`${SUPPORTED}; this Node uses musl libc: use a glibc-based image such as debian:bookworm-slim`);
    throw new NativeAddonError(describe(cause instanceof Error ? cause.message : String(cause)), { cause });
  }
  const { setChildSubreaper, reapPid, peekZombie, exitNow } = module.exports;
  if (
    typeof setChildSubreaper !== 'function' ||
    typeof reapPid !== 'function' ||
    typeof peekZombie !== 'function' ||
    typeof exitNow !== 'function'
  ) {
    throw new NativeAddonError(describe('not the reaper addon (no setChildSubreaper/reapPid/peekZombie/exitNow)'));
  }
  return module.exports as unknown as NativeProcessApi;
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

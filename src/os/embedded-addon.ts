import { closeSync, constants, fstatSync, lstatSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { getAsset } from 'node:sea';
import { errorCode } from '../support/error-code.ts';

// The single executable carries the reaper addon as an asset, and dlopen needs
// a file. Every file it opens is first checked through a descriptor of its own
// (a regular file, of a user it trusts, writable by no one else, with exactly
// the embedded bytes) and loaded through that descriptor (/proc/self/fd/N), so
// whatever another user does to the path after the check cannot change what is
// loaded. Paths are only ever a way to find a candidate, never trusted.

/** The single executable's asset holding the addon (scripts/build-binary.mjs). */
export const ADDON_ASSET = 'reaper.node';
/** Where the single executable writes its embedded addon, before the usual places (see extractDirs). */
export const NATIVE_DIR_ENV = 'SIDECAR_INIT_NATIVE_DIR';
/** The name `sidecar-init install` gives the addon beside the executable: the executable's own name plus this. */
export const BESIDE_SUFFIX = '.node';

/** A group- or other-writable file or folder could be changed by someone we do not trust. */
const WRITABLE_BY_OTHERS = 0o022;
const GROUP_OR_OTHER_ACCESS = 0o077;
const READ_ONLY_NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Loads an addon from a path (here always /proc/self/fd/N); throws with the loader's reason. */
export type LoadAddon = (path: string) => unknown;

export class EmbeddedAddonError extends Error {
  readonly code = 'ERR_EMBEDDED_ADDON';
}

/** The embedded addon's bytes. */
export function embeddedAddon(): Uint8Array {
  return new Uint8Array(getAsset(ADDON_ASSET));
}

/**
 * The addon beside the executable (what `sidecar-init install` writes), if it
 * is this build's, else the embedded copy written into a private folder of the
 * first place where it loads: $SIDECAR_INIT_NATIVE_DIR, /dev/shm,
 * $XDG_RUNTIME_DIR, $TMPDIR, /tmp, /var/tmp. Node offers no memfd_create, and
 * /dev/shm is mounted noexec by Docker, podman and containerd, hence the list.
 * The written copy is removed as soon as it is loaded (the mapping stays), so
 * each start writes it once and leaves nothing behind.
 */
export function loadEmbeddedAddon<Api>(load: (path: string) => Api, env: NodeJS.ProcessEnv, execPath: string): Api {
  const bytes = embeddedAddon();
  const failures: string[] = [];
  const beside = `${execPath}${BESIDE_SUFFIX}`;
  const installed = openVerified(beside, bytes, trustedOwners(execPath));
  if (installed.kind === 'verified') {
    try {
      return loadThrough(installed.fd, load);
    } catch (error) {
      failures.push(`${beside}: ${describeLoadFailure(error)}`);
    }
  } else if (installed.kind === 'rejected') {
    failures.push(`${beside}: ${installed.reason}`);
  }
  for (const dir of extractDirs(env)) {
    const loaded = extractAndLoad(dir, bytes, load);
    if (loaded.kind === 'loaded') return loaded.api;
    failures.push(`${dir}: ${loaded.reason}`);
  }
  throw new EmbeddedAddonError(
    `cannot load the embedded native reaper addon: it needs a writable directory not mounted noexec (${failures.join('; ')}); ` +
      `mount one (e.g. an emptyDir at /tmp) or set ${NATIVE_DIR_ENV}=DIR`,
  );
}

function extractDirs(env: NodeJS.ProcessEnv): string[] {
  const dirs = [env[NATIVE_DIR_ENV], '/dev/shm', env.XDG_RUNTIME_DIR, env.TMPDIR, '/tmp', '/var/tmp'];
  return [...new Set(dirs.filter((dir): dir is string => dir !== undefined && dir !== '').map((dir) => dir.replace(/\/+$/, '') || '/'))];
}

/**
 * Who may own the file beside the executable: us, root, and whoever owns the
 * executable (they could replace the executable itself, so trusting their
 * addon trusts no one new).
 */
function trustedOwners(execPath: string): ReadonlySet<number> {
  const owners = new Set([process.geteuid?.() ?? 0, 0]);
  const executable = statSync(execPath, { throwIfNoEntry: false });
  if (executable !== undefined) owners.add(executable.uid);
  return owners;
}

type Extracted<Api> = { readonly kind: 'loaded'; readonly api: Api } | { readonly kind: 'failed'; readonly reason: string };

/**
 * A folder of our own with a name nobody can guess (mkdtemp: created 0700,
 * failing rather than reusing anything already there), the addon created in it
 * with O_EXCL, checked and loaded through one descriptor, then both removed.
 * Anything unexpected (a folder not ours, a name taken, a short write) moves on
 * to the next place; nothing another user left anywhere is ever opened.
 */
function extractAndLoad<Api>(base: string, bytes: Uint8Array, load: (path: string) => Api): Extracted<Api> {
  let dir: string;
  try {
    dir = mkdtempSync(`${base}/sidecar-init-`);
  } catch (error) {
    return { kind: 'failed', reason: describeFsError(error) };
  }
  try {
    const uid = process.geteuid?.() ?? 0;
    const folder = lstatSync(dir);
    if (!folder.isDirectory() || folder.uid !== uid || (folder.mode & GROUP_OR_OTHER_ACCESS) !== 0) {
      return { kind: 'failed', reason: `${dir} is not a private folder of uid ${uid}` };
    }
    const file = `${dir}/${ADDON_ASSET}`;
    try {
      writeNew(file, bytes);
    } catch (error) {
      return { kind: 'failed', reason: describeFsError(error) };
    }
    const written = openVerified(file, bytes, new Set([uid]));
    if (written.kind !== 'verified') return { kind: 'failed', reason: written.kind === 'missing' ? 'missing' : written.reason };
    try {
      return { kind: 'loaded', api: loadThrough(written.fd, load) };
    } catch (error) {
      return { kind: 'failed', reason: describeLoadFailure(error) };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Creates `file`, which must not exist, with `bytes`: only the owner may read it. */
export function writeNew(file: string, bytes: Uint8Array, mode = 0o400): void {
  const fd = openSync(file, CREATE_NEW, mode);
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
  } finally {
    closeSync(fd);
  }
}

export type Verified =
  | { readonly kind: 'verified'; readonly fd: number }
  | { readonly kind: 'missing' }
  | { readonly kind: 'rejected'; readonly reason: string };

/**
 * Opens `file` without following a symlink or blocking on a FIFO, and keeps
 * the descriptor only if it is a regular file owned by one of `owners`,
 * writable by no one else, holding exactly `bytes`: then nobody we do not
 * trust can change it before it is loaded through that descriptor.
 */
export function openVerified(file: string, bytes: Uint8Array, owners: ReadonlySet<number>): Verified {
  // lstat first: open(O_NONBLOCK) of a device node could still have effects.
  const link = lstatSync(file, { throwIfNoEntry: false });
  if (link === undefined) return { kind: 'missing' };
  if (!link.isFile()) return { kind: 'rejected', reason: 'not a regular file' };
  let fd: number;
  try {
    fd = openSync(file, READ_ONLY_NO_FOLLOW);
  } catch (error) {
    return { kind: 'rejected', reason: describeFsError(error) };
  }
  const reason = checkContent(fd, bytes, owners);
  if (reason === undefined) return { kind: 'verified', fd };
  closeSync(fd);
  return { kind: 'rejected', reason };
}

function checkContent(fd: number, bytes: Uint8Array, owners: ReadonlySet<number>): string | undefined {
  const stat = fstatSync(fd);
  if (!stat.isFile()) return 'not a regular file';
  if (!owners.has(stat.uid)) return `owned by uid ${stat.uid}, which is not trusted`;
  if ((stat.mode & WRITABLE_BY_OTHERS) !== 0) return 'writable by group or others';
  if (stat.size !== bytes.length) return "not this build's addon (size differs)";
  const content = Buffer.alloc(bytes.length);
  let read = 0;
  while (read < content.length) {
    const count = readSync(fd, content, read, content.length - read, read);
    if (count === 0) return "not this build's addon (shorter than it said)";
    read += count;
  }
  return content.equals(bytes) ? undefined : "not this build's addon (content differs)";
}

/** dlopen through the descriptor, so the file checked is the file loaded; the descriptor is closed after. */
function loadThrough<Api>(fd: number, load: (path: string) => Api): Api {
  const path = `/proc/self/fd/${fd}`;
  try {
    if (statSync(path, { throwIfNoEntry: false }) === undefined)
      throw new Error('/proc is not mounted, and the addon is loaded through it');
    return load(path);
  } finally {
    closeSync(fd);
  }
}

function describeFsError(error: unknown): string {
  const code = errorCode(error);
  if (code === 'EROFS') return 'read-only';
  if (code === 'EACCES' || code === 'EPERM') return 'not writable';
  if (code === 'ENOENT') return 'missing';
  return code ?? String(error);
}

function describeLoadFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/failed to map segment|operation not permitted/i.test(message)) return 'mounted noexec';
  return message;
}

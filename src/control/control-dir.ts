import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, rmdirSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname } from 'node:path';
import { errorCode } from '../support/error-code.ts';

// The default control socket's folder, /tmp/sidecar-init-UID (defaultControlPath, plan/control-socket.ts).
// /tmp is everyone's, so the folder is trusted only when it is sidecar-init's
// own: made here with mode 0700, or found as a directory (not a symlink) owned
// by this uid that nobody else can enter. A folder someone else made first
// (to plant a socket ctl would talk to) is refused, never used or changed.
// /tmp's sticky bit is what keeps anyone else from renaming ours away and
// putting theirs in its place; an emptyDir mounted at /tmp has none (mode
// 0777), and there the default folder is refused by both sides (checkTmp).
// `ctl` reaches the socket through a descriptor of the folder it checked
// (openControlDir), never by its name again, and checks who answers
// (control-client.ts).

export type ControlDir =
  | { readonly ok: true; readonly created: boolean }
  | {
      readonly ok: false;
      readonly reason: string /** Someone else's folder or file is there, or anyone could swap it. */;
      readonly foreign: boolean;
    };

const STICKY = 0o1000;
/** Group or others may write. */
const WRITABLE_BY_OTHERS = 0o022;

/** Makes the folder, or checks the one there; the server's side. */
export function prepareControlDir(dir: string, uid: number): ControlDir {
  const tmp = checkTmp(dir, uid);
  if (tmp !== undefined) return { ok: false, reason: tmp, foreign: true };
  try {
    mkdirSync(dir, { mode: 0o700 });
    // The umask can only take bits away from 0700: nothing to correct.
    return { ok: true, created: true };
  } catch (error) {
    if (errorCode(error) !== 'EEXIST')
      return { ok: false, reason: `${dir} cannot be made: ${errorCode(error) ?? String(error)}`, foreign: false };
  }
  return checkControlDir(dir, uid);
}

/** Whether the folder is this uid's own and closed to others, by its name; the server's side, where /tmp is sticky (checkTmp). */
export function checkControlDir(dir: string, uid: number): ControlDir {
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (stat === undefined) return { ok: false, reason: `${dir} does not exist`, foreign: false };
  if (!stat.isDirectory()) return notADirectory(dir);
  return checkOwnership(dir, stat, uid);
}

/**
 * `ctl`'s side: the folder opened (O_DIRECTORY|O_NOFOLLOW) and checked
 * through that descriptor, which the socket is then reached through
 * (/proc/self/fd/N/control.sock): a folder swapped for another's after the
 * check is never the one connected to. The descriptor is the caller's to close.
 */
export function openControlDir(
  dir: string,
  uid: number,
): { readonly ok: true; readonly fd: number } | (ControlDir & { readonly ok: false }) {
  const tmp = checkTmp(dir, uid);
  if (tmp !== undefined) return { ok: false, reason: tmp, foreign: true };
  let fd: number;
  try {
    // libuv opens every file close-on-exec.
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return { ok: false, reason: `${dir} does not exist`, foreign: false };
    if (code === 'ELOOP' || code === 'ENOTDIR') return notADirectory(dir);
    return { ok: false, reason: `${dir} cannot be opened: ${code ?? String(error)}`, foreign: false };
  }
  const checked = checkOwnership(dir, fstatSync(fd), uid);
  if (checked.ok) return { ok: true, fd };
  closeSync(fd);
  return checked;
}

/**
 * Why the folder the default one sits in (/tmp) cannot keep it ours, or
 * undefined when it can: it must be root's or this uid's, and sticky when
 * others may write it, or anyone could rename our folder away (or
 * RENAME_EXCHANGE it with theirs) between a check and a use.
 */
export function checkTmp(dir: string, uid: number): string | undefined {
  const parent = dirname(dir);
  let stat: Stats;
  try {
    stat = statSync(parent);
  } catch (error) {
    return `${parent} cannot be read: ${errorCode(error) ?? String(error)}`;
  }
  if (stat.uid !== 0 && stat.uid !== uid)
    return `${parent} belongs to uid ${stat.uid}, who could swap ${dir} for a folder of their own; give --control PATH`;
  if ((stat.mode & WRITABLE_BY_OTHERS) !== 0 && (stat.mode & STICKY) === 0)
    return (
      `${parent} is writable by others and not sticky (mode ${(stat.mode & 0o7777).toString(8)}), so anyone could swap ${dir} for a folder ` +
      `of their own; make it sticky (chmod 1777 ${parent}, as an emptyDir's first step) or give --control PATH`
    );
  return undefined;
}

function notADirectory(dir: string): ControlDir & { readonly ok: false } {
  return { ok: false, reason: `${dir} is not a directory (a symlink?); remove it or give --control PATH`, foreign: true };
}

function checkOwnership(dir: string, stat: Stats, uid: number): ControlDir {
  if (stat.uid !== uid)
    return { ok: false, reason: `${dir} belongs to uid ${stat.uid}, not ${uid}: someone else made it; give --control PATH`, foreign: true };
  if ((stat.mode & 0o077) !== 0)
    return {
      ok: false,
      reason: `${dir} is open to others (mode ${(stat.mode & 0o777).toString(8)}); it must be 700, or give --control PATH`,
      foreign: true,
    };
  return { ok: true, created: false };
}

/** Removes the folder this run made, once its socket is gone; one another run still uses is not empty and stays. */
export function removeControlDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (another socket of this uid) or already gone: either way not ours to remove.
  }
}

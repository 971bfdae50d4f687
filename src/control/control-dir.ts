import { lstatSync, mkdirSync, rmdirSync } from 'node:fs';
import { errorCode } from '../support/error-code.ts';

// The default control socket's folder, /tmp/sidecar-init-UID (defaultControlPath, plan/control-socket.ts).
// /tmp is everyone's, so the folder is trusted only when it is sidecar-init's
// own: made here with mode 0700, or found as a directory (not a symlink) owned
// by this uid that nobody else can enter. A folder someone else made first
// (to plant a socket ctl would talk to) is refused, never used or changed;
// /tmp's sticky bit keeps anyone else from renaming or removing ours once made.

export type ControlDir =
  | { readonly ok: true; readonly created: boolean }
  | { readonly ok: false; readonly reason: string /** Someone else's folder or file is there. */; readonly foreign: boolean };

/** Makes the folder, or checks the one there; the server's side. */
export function prepareControlDir(dir: string, uid: number): ControlDir {
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

/** Whether the folder is this uid's own and closed to others; `ctl`'s side, before it trusts a socket in it. */
export function checkControlDir(dir: string, uid: number): ControlDir {
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (stat === undefined) return { ok: false, reason: `${dir} does not exist`, foreign: false };
  if (!stat.isDirectory())
    return { ok: false, reason: `${dir} is not a directory (a symlink?); remove it or give --control PATH`, foreign: true };
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

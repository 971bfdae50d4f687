import { readFileSync } from 'node:fs';
import type { UnixSocketApi } from './addon.ts';
import { loadNativeProcessApi } from './native.ts';
import { parseProcStat } from './proc-table.ts';

/** The addon's Unix socket functions (src/os/native/unix-socket.c, os/addon.ts says what each does). */
export function loadUnixSocketApi(): UnixSocketApi {
  return loadNativeProcessApi();
}

/** Generations above a sender that are looked at before giving up: deeper trees are not a process's own helpers. */
const MAX_TREE_DEPTH = 64;

/**
 * Whether pid is root or one of its descendants, by walking /proc/PID/stat's
 * parent links upwards. A pid that is gone (or not visible) is not in the tree.
 */
export function isInProcessTree(pid: number, root: number): boolean {
  let current = pid;
  for (let depth = 0; depth < MAX_TREE_DEPTH; depth++) {
    if (current === root) return true;
    if (current <= 1) return false;
    let line: string;
    try {
      line = readFileSync(`/proc/${current}/stat`, 'latin1');
    } catch {
      return false;
    }
    const entry = parseProcStat(line);
    if (entry === undefined) return false;
    current = entry.ppid;
  }
  return false;
}

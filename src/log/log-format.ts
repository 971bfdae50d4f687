import { fstatSync } from 'node:fs';
import type { LogFormat } from '../plan/plan.ts';
import { loadedNativeProcessApi } from '../os/native.ts';

const STDERR_FD = 2;

/** As configured, or else text on a terminal, where a person reads it, and JSON anywhere else (a container log). */
export function resolveLogFormat(configured: LogFormat | undefined): LogFormat {
  return configured ?? (isTerminal(STDERR_FD) ? 'text' : 'json');
}

/**
 * A pipe or a file (a container's log) is no terminal, which fstat tells
 * without loading node:tty; only a character device is asked isatty(), by the
 * addon when it is loaded (a run loads it before its log). node:tty loads net
 * and the streams with it: at every start on a terminal (bench/README.md,
 * "Where a start spends its time").
 */
function isTerminal(fd: number): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
    return loadedNativeProcessApi()?.isTerminal(fd) ?? process.getBuiltinModule('node:tty').isatty(fd);
  } catch {
    // A closed stderr is no terminal either (EBADF).
    return false;
  }
}

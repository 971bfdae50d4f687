import { writeSync } from 'node:fs';
import { errorCode } from '../support/error-code.ts';

/** How long to back off when a non-blocking pipe is full, before trying again. */
const PIPE_FULL_RETRY_MS = 1;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `text` to a file descriptor before returning. Only for output
 * written when nothing is running yet (usage, --version, configuration
 * problems, `validate`), which must not be lost to the exit that follows; the
 * log lines of a run go through logger.ts, which never blocks.
 * A reader that went away (EPIPE) must not crash PID 1 or change its exit code,
 * so that is swallowed: there is nobody left to tell.
 */
export function writeAllSync(fd: number, text: string): void {
  let buffer = Buffer.from(text);
  while (buffer.length > 0) {
    try {
      buffer = buffer.subarray(writeSync(fd, buffer));
    } catch (error) {
      const code = errorCode(error);
      if (code === 'EAGAIN') {
        Atomics.wait(sleeper, 0, 0, PIPE_FULL_RETRY_MS);
        continue;
      }
      if (code === 'EPIPE' || code === 'EBADF') return;
      throw error;
    }
  }
}

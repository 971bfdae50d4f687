import { escapeControl } from '../output/escape-control.ts';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import type { Logger } from 'pino';
import type { TerminationLog } from '../plan/plan.ts';

// The termination message: the reason for the exit, one line, in the file
// Kubernetes reads when the container stops (terminationMessagePath) and shows
// in `kubectl describe pod` and the pod's status. Writing it never changes the
// exit code: whatever fails is a debug line for Kubernetes' default path (it
// is simply not mounted outside Kubernetes) and a warning for a path given.

/** What the kubelet reads of the file (and the most a container's message may hold). */
export const MAX_TERMINATION_MESSAGE_BYTES = 4 * 1024;
const ELLIPSIS = '...';
/**
 * No symlink followed at the last step (a neighbour's link in /tmp must not
 * make root truncate another file); never blocking on a FIFO without a reader.
 */
const OPEN_FLAGS = constants.O_WRONLY | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const FILE_MODE = 0o644;

/** Writes `message` as the termination message where `target` says; never throws. */
export function writeTerminationMessage(target: TerminationLog, message: string, logger: Logger): void {
  if (target.kind === 'none') return;
  const flags = target.kind === 'file' ? OPEN_FLAGS | constants.O_CREAT : OPEN_FLAGS;
  let fd: number | undefined;
  try {
    fd = openSync(target.path, flags, FILE_MODE);
    const bytes = formatTerminationMessage(message);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    logger.debug({ event: 'termination-message', path: target.path }, 'termination message written');
  } catch (error) {
    const { code, message: reason } = error as NodeJS.ErrnoException;
    const fields = { event: 'termination-message-failed', path: target.path, code };
    if (target.kind === 'file') logger.warn(fields, `could not write the termination message: ${reason}`);
    else logger.debug(fields, `no termination message: ${reason}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** One line, control characters escaped, at most MAX_TERMINATION_MESSAGE_BYTES with its newline. */
export function formatTerminationMessage(message: string): Buffer {
  const line = Buffer.from(`${escapeControl(message)}\n`);
  if (line.length <= MAX_TERMINATION_MESSAGE_BYTES) return line;
  let end = MAX_TERMINATION_MESSAGE_BYTES - ELLIPSIS.length - 1;
  // Cut before a UTF-8 continuation byte's character, never inside it.
  while (end > 0 && (line[end]! & 0xc0) === 0x80) end -= 1;
  return Buffer.concat([line.subarray(0, end), Buffer.from(`${ELLIPSIS}\n`)]);
}

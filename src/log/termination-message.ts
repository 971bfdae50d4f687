import { constants } from 'node:fs';
import type { Logger } from 'pino';
import { escapeControl } from '../output/escape-control.ts';
import type { TerminationLog } from '../plan/plan.ts';
import { errorCode } from '../support/error-code.ts';
import { closeDescriptor, statDescriptor, truncateDescriptor, writeDescriptor } from './descriptor-calls.ts';

// The termination message: the reason for the exit, one line, in the file
// Kubernetes reads when the container stops (terminationMessagePath) and shows
// in `kubectl describe pod` and the pod's status. Writing it never changes the
// exit code: whatever fails is a debug line for Kubernetes' default path (it
// is simply not mounted outside Kubernetes) and a warning for a path given.
//
// The path may run through folders a neighbour can write (a shared volume,
// /tmp), and sidecar-init is often root: no symlink anywhere on it is
// followed (open-without-symlinks.ts), only a regular file of one link is
// written (a hard link would carry the message into another file), and it
// is truncated only once it is known to be that. Nothing blocks: the opens are
// asynchronous and O_NONBLOCK (a FIFO is never waited on), and the whole write
// gives up after TERMINATION_MESSAGE_DEADLINE_MS (a volume that hangs).

/** What the kubelet reads of the file (and the most a container's message may hold). */
export const MAX_TERMINATION_MESSAGE_BYTES = 4 * 1024;
/** The exit waits at most this long for the message; a local file takes well under a millisecond. */
export const TERMINATION_MESSAGE_DEADLINE_MS = 1_000;
const ELLIPSIS = '...';
/** Not O_TRUNC: the file is truncated only after fstat says it is one to write. */
const OPEN_FLAGS = constants.O_WRONLY | constants.O_NONBLOCK;
const FILE_MODE = 0o644;

/** Why the file found is not one to write the message into. */
class NotWritableHere extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.code = code;
  }
}

/** Writes `message` as the termination message where `target` says; never rejects. */
export async function writeTerminationMessage(target: TerminationLog, message: string, logger: Logger): Promise<void> {
  if (target.kind === 'none') return;
  const flags = target.kind === 'file' ? OPEN_FLAGS | constants.O_CREAT : OPEN_FLAGS;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new NotWritableHere(`gave up after ${TERMINATION_MESSAGE_DEADLINE_MS} ms`, 'ETIMEDOUT')),
      TERMINATION_MESSAGE_DEADLINE_MS,
    );
  });
  try {
    await Promise.race([writeFile(target.path, flags, formatTerminationMessage(message)), deadline]);
    logger.debug({ event: 'termination-message', path: target.path }, 'termination message written');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const fields = { event: 'termination-message-failed', path: target.path, code: errorCode(error) };
    if (target.kind === 'file') logger.warn(fields, `could not write the termination message: ${reason}`);
    else logger.debug(fields, `no termination message: ${reason}`);
  } finally {
    clearTimeout(timer);
  }
}

async function writeFile(path: string, flags: number, bytes: Buffer): Promise<void> {
  // Loaded at the exit, not at the start: nothing else of a run needs it.
  const { openWithoutSymlinks } = await import('./open-without-symlinks.ts');
  const fd = await openWithoutSymlinks(path, flags, FILE_MODE);
  try {
    await checkWritable(fd, path);
    await truncateDescriptor(fd, 0);
    let written = 0;
    while (written < bytes.length) written += await writeDescriptor(fd, bytes, written, bytes.length - written, written);
  } finally {
    await closeDescriptor(fd);
  }
}

async function checkWritable(fd: number, path: string): Promise<void> {
  const stat = await statDescriptor(fd);
  if (!stat.isFile()) throw new NotWritableHere(`${path}: not a regular file`, 'EFTYPE');
  if (stat.nlink > 1) {
    throw new NotWritableHere(`${path}: has ${stat.nlink} hard links, and writing it would change the other names too`, 'EMLINK');
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

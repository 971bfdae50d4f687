import type { Readable } from 'node:stream';
import type { Transform } from 'node:stream';
import type { OutputSink } from './output-sink.ts';

// From a child's pipe through a line writer to a sink shared with other
// processes (output-sink.ts). Not writer.pipe(sink): a shared sink must never
// be ended by one child, and a sink whose reader went away (EPIPE) must not
// leave the child blocked forever on a full pipe — its output is dropped
// instead, as it would be for a child writing to that pipe itself.

/** Pipelines whose source has not ended yet, and the sinks they write to. */
const open = new Set<Promise<void>>();
const sinks = new Set<OutputSink>();

/** Resolves when the source has ended and its last line has been handed to the sink. */
export function pipeOutput(source: Readable, writer: Transform, sink: OutputSink): Promise<void> {
  const ended = connect(source, writer, sink);
  open.add(ended);
  sinks.add(sink);
  void ended.then(() => open.delete(ended));
  return ended;
}

/**
 * Resolves once every pipeline has ended and its sink has written what it
 * holds, or at `deadline`, whichever comes first: before sidecar-init exits, a
 * process's last lines are still on their way through it, but a reader that
 * never reads (or a pipe a leftover keeps open) must not hold the exit.
 */
export async function flushOutput(deadlineMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
  });
  const drained = (async () => {
    await Promise.all(open);
    await Promise.all([...sinks].map(waitForDrain));
  })();
  await Promise.race([drained, deadline]);
  clearTimeout(timer);
}

/** Writes handed to each sink that it has not finished yet, and who waits for none to be left. */
const inFlight = new WeakMap<OutputSink, { pending: number; idle: (() => void)[] }>();

function track(sink: OutputSink) {
  let entry = inFlight.get(sink);
  if (entry === undefined) {
    entry = { pending: 0, idle: [] };
    inFlight.set(sink, entry);
  }
  return entry;
}

/** Writes `chunk`, counting it until the sink has written it (or failed to). */
function writeCounted(sink: OutputSink, chunk: Buffer): boolean {
  const entry = track(sink);
  entry.pending += 1;
  return sink.write(chunk, () => {
    entry.pending -= 1;
    if (entry.pending === 0) for (const resolve of entry.idle.splice(0)) resolve();
  });
}

function waitForDrain(sink: OutputSink): Promise<void> {
  const entry = track(sink);
  if (sink.destroyed || entry.pending === 0) return Promise.resolve();
  return new Promise((resolve) => entry.idle.push(resolve));
}

function connect(source: Readable, writer: Transform, sink: OutputSink): Promise<void> {
  // Errors of a child's pipe end its output; they must never reach PID 1 as an unhandled 'error'.
  source.on('error', () => writer.end());
  writer.on('error', () => {});
  source.pipe(writer);
  writer.on('data', (chunk: Buffer) => {
    if (sink.destroyed) return;
    if (!writeCounted(sink, chunk)) {
      writer.pause();
      resumeWhenDrained(sink, writer);
    }
  });
  return new Promise((resolve) => {
    writer.once('end', resolve);
    writer.once('close', resolve);
  });
}

/** Resumes on 'drain', or when the sink is gone (no 'drain' will ever come). */
function resumeWhenDrained(sink: OutputSink, writer: Transform): void {
  const resume = (): void => {
    sink.off('drain', resume);
    sink.off('close', resume);
    writer.resume();
  };
  sink.on('drain', resume);
  sink.on('close', resume);
}

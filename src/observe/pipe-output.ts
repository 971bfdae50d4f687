import type { Readable, Writable } from 'node:stream';
import type { Transform } from 'node:stream';

// From a child's pipe through a line writer to a sink shared with other
// processes (output-sink.ts). Not writer.pipe(sink): a shared sink must never
// be ended by one child, and a sink whose reader went away (EPIPE) must not
// leave the child blocked forever on a full pipe — its output is dropped
// instead, as it would be for a child writing to that pipe itself.

/** Resolves when the source has ended and its last line has been handed to the sink. */
export function pipeOutput(source: Readable, writer: Transform, sink: Writable): Promise<void> {
  // Errors of a child's pipe end its output; they must never reach PID 1 as an unhandled 'error'.
  source.on('error', () => writer.end());
  writer.on('error', () => {});
  source.pipe(writer);
  writer.on('data', (chunk: Buffer) => {
    if (sink.destroyed || sink.writableEnded) return;
    if (!sink.write(chunk)) {
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
function resumeWhenDrained(sink: Writable, writer: Transform): void {
  const resume = (): void => {
    sink.off('drain', resume);
    sink.off('close', resume);
    writer.resume();
  };
  sink.on('drain', resume);
  sink.on('close', resume);
}

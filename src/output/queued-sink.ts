import { EventEmitter } from 'node:events';
import { closeSync, writev, writevSync } from 'node:fs';
import { errorCode } from '../support/error-code.ts';

// A sink written from a queue of its own, with node:fs alone: not node:net's
// Socket nor a write stream, which bring node:net or node:stream and their
// thirty-odd modules, compiled from source at every start under --jitless.
// It offers what its writers use of a Writable (output-sink.ts's OutputSink).

/** Past this many bytes queued, write() returns false: a writer that can wait ('drain') waits, as for a Writable. */
const HIGH_WATER_MARK_BYTES = 16 * 1024;

/** At most this many queued chunks go in one writev(2): a long queue (a reader back after a stall) is written in a few calls, none of them copying the whole queue. */
const MAX_CHUNKS_PER_WRITE = 64;

/** Calls `onWritable` each time fd can take more bytes, until close() (the addon's uv_poll_t). */
export type WatchWritable = (fd: number, onWritable: () => void) => { close(): void };

interface Queued {
  bytes: Buffer;
  readonly done: (() => void) | undefined;
}

/** The queue and the events; how the bytes leave is the subclass's. */
abstract class QueuedSink extends EventEmitter {
  protected readonly queue: Queued[] = [];
  #queuedBytes = 0;
  #needDrain = false;
  #destroyed = false;

  constructor(protected readonly fd: number) {
    super();
  }

  get writableLength(): number {
    return this.#queuedBytes;
  }

  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** Queues `chunk`; `done` is called once it is written, or dropped because the reader went away. */
  write(chunk: string | Uint8Array, done?: () => void): boolean {
    if (this.#destroyed) {
      if (done !== undefined) process.nextTick(done);
      return false;
    }
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.queue.push({ bytes, done });
    this.#queuedBytes += bytes.length;
    this.pump();
    const below = this.#queuedBytes < HIGH_WATER_MARK_BYTES;
    if (!below) this.#needDrain = true;
    return below;
  }

  /** The head of the queue, as one writev(2) takes it. */
  protected nextChunks(): Buffer[] {
    return this.queue.slice(0, MAX_CHUNKS_PER_WRITE).map((queued) => queued.bytes);
  }

  /** Starts writing what is queued, unless a write is under way already. */
  protected abstract pump(): void;

  /** `count` bytes from the head of the queue were written: their chunks are done. */
  protected consume(count: number): void {
    let left = count;
    // An empty chunk is done as soon as it is at the head.
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      const taken = Math.min(left, head.bytes.length);
      head.bytes = head.bytes.subarray(taken);
      this.#queuedBytes -= taken;
      left -= taken;
      if (head.bytes.length > 0) break;
      this.queue.shift();
      if (head.done !== undefined) process.nextTick(head.done);
    }
    if (this.queue.length === 0 && this.#needDrain) {
      this.#needDrain = false;
      process.nextTick(() => this.emit('drain'));
    }
  }

  /** The reader went away (EPIPE) or the descriptor failed: what is queued is dropped, and so is whatever comes. */
  protected destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const { done } of this.queue.splice(0)) if (done !== undefined) process.nextTick(done);
    this.#queuedBytes = 0;
    this.release();
    process.nextTick(() => this.emit('close'));
  }

  /** What the sink holds besides its queue (a watch, a descriptor of its own), let go once it is destroyed. */
  protected release(): void {}
}

/**
 * A non-blocking descriptor of its own (output-sink.ts reopens the pipe for
 * it): each write is tried at once; what the pipe cannot take waits in the
 * queue, and the addon's watch says when the pipe can take more. Nothing ever
 * waits in the kernel, and nothing keeps the process alive: the watch is
 * unref'd, so the exit drops what is still queued.
 */
export class NonBlockingSink extends QueuedSink {
  #watch: { close(): void } | undefined;

  constructor(
    fd: number,
    private readonly watchWritable: WatchWritable,
  ) {
    super(fd);
  }

  protected pump(): void {
    // Waiting for the pipe to take more: the watch writes on.
    if (this.#watch !== undefined) return;
    this.#writeWhatItTakes();
  }

  #writeWhatItTakes(): void {
    while (this.queue.length > 0) {
      let written: number;
      try {
        written = writevSync(this.fd, this.nextChunks());
      } catch (error) {
        if (errorCode(error) === 'EAGAIN') return this.#waitForRoom();
        return this.destroy();
      }
      this.consume(written);
    }
    this.#watch?.close();
    this.#watch = undefined;
  }

  #waitForRoom(): void {
    if (this.#watch !== undefined) return;
    try {
      this.#watch = this.watchWritable(this.fd, () => this.#writeWhatItTakes());
    } catch {
      this.destroy();
    }
  }

  protected override release(): void {
    this.#watch?.close();
    this.#watch = undefined;
    try {
      closeSync(this.fd);
    } catch {
      // Nothing is left to write through it either way.
    }
  }
}

/**
 * A descriptor written through libuv's thread pool, one write at a time, as
 * a write stream does: for files and terminals, and a pipe that could not be
 * reopened. A write that blocks holds a pool thread, never the event loop.
 * The descriptor is not ours (1 or 2): it is never closed.
 */
export class ThreadedSink extends QueuedSink {
  #writing = false;

  protected pump(): void {
    if (this.#writing || this.queue.length === 0 || this.destroyed) return;
    this.#writing = true;
    writev(this.fd, this.nextChunks(), (error, written) => {
      this.#writing = false;
      if (error !== null) return this.destroy();
      this.consume(written);
      this.pump();
    });
  }
}

import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadUnixSocketApi } from '../os/unix-socket.ts';
import { NonBlockingSink, ThreadedSink } from './queued-sink.ts';
import { useTempDirs } from '../../test/support/temp-dirs.ts';

// The sinks on a real FIFO and a real file, with the addon's writable watch.

const tempDir = useTempDirs('queued-sink');

/** A FIFO's two ends, both non-blocking: the test reads only when it chooses to, and never waits in the kernel. */
function openFifo(): { reader: number; writer: number } {
  const path = join(tempDir(), 'fifo');
  execFileSync('mkfifo', [path]);
  const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  return { reader, writer };
}

/** Everything the FIFO holds now. */
function drain(reader: number): Buffer {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    try {
      const count = readSync(reader, buffer);
      if (count === 0) break;
      chunks.push(Buffer.from(buffer.subarray(0, count)));
    } catch {
      break;
    }
  }
  return Buffer.concat(chunks);
}

const { watchWritable } = loadUnixSocketApi();

describe('NonBlockingSink', () => {
  it('writes at once while the pipe has room, and calls each callback after the write', async () => {
    const { reader, writer } = openFifo();
    const sink = new NonBlockingSink(writer, watchWritable);
    const done: string[] = [];
    expect(sink.write('one\n', () => done.push('one'))).toBe(true);
    expect(sink.write(Buffer.from('two\n'), () => done.push('two'))).toBe(true);
    expect(done).toEqual([]);
    expect(sink.writableLength).toBe(0);
    expect(drain(reader).toString()).toBe('one\ntwo\n');
    await new Promise((resolve) => process.nextTick(resolve));
    expect(done).toEqual(['one', 'two']);
    closeSync(reader);
  });

  it('queues what a stalled reader leaves, never blocks, and writes it on in order once the reader reads', async () => {
    const { reader, writer } = openFifo();
    const sink = new NonBlockingSink(writer, watchWritable);
    // Lines numbered so that order and completeness can be checked: more than the pipe's 64 KiB.
    const lines = Array.from({ length: 1_000 }, (_, index) => `line ${index} ${'x'.repeat(100)}\n`);
    const results = lines.map((line) => sink.write(line));
    expect(results.at(-1)).toBe(false);
    expect(sink.writableLength).toBeGreaterThan(0);
    const drained = new Promise<void>((resolve) => sink.on('drain', resolve));
    let received = '';
    while (sink.writableLength > 0) {
      received += drain(reader).toString();
      // The watch writes on the loop's next turn after the pipe has room.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await drained;
    received += drain(reader).toString();
    expect(received).toBe(lines.join(''));
    closeSync(reader);
  });

  it('is destroyed when the reader goes away (EPIPE): queued writes are dropped and their callbacks still called', async () => {
    const { reader, writer } = openFifo();
    const sink = new NonBlockingSink(writer, watchWritable);
    const closed = new Promise<void>((resolve) => sink.on('close', resolve));
    closeSync(reader);
    let called = 0;
    sink.write('nobody reads this\n', () => called++);
    await closed;
    expect(sink.destroyed).toBe(true);
    expect(sink.write('nor this\n', () => called++)).toBe(false);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(called).toBe(2);
  });
});

describe('ThreadedSink', () => {
  it('writes every chunk to a file in order, one write at a time', async () => {
    const path = join(tempDir(), 'log');
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT);
    const sink = new ThreadedSink(fd);
    const written = Array.from({ length: 100 }, (_, index) => new Promise<void>((resolve) => sink.write(`line ${index}\n`, resolve)));
    await Promise.all(written);
    expect(sink.writableLength).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(Array.from({ length: 100 }, (_, index) => `line ${index}\n`).join(''));
    closeSync(fd);
  });
});

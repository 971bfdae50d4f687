import { constants, fstatSync, openSync } from 'node:fs';
import { lazyNet } from '../support/lazy-net.ts';
import { loadedNativeProcessApi } from '../os/native.ts';
import { NonBlockingSink, ThreadedSink, type WatchWritable } from './queued-sink.ts';

// Where output that passes through the supervisor (its own log lines, and a
// sidecar's output with a log probe) goes on to the container log.
// process.stdout will not do: on Linux its writes to pipes are synchronous, so
// a stalled log reader would freeze PID 1 — signals, reaping, probes, the exit
// itself. A write served by libuv's thread pool is no better: a write stuck
// on a full pipe keeps Node from ever exiting (it joins those threads at exit).
//
// So a pipe is reopened through /proc/self/fd: a new open file description of
// the same pipe, which can be non-blocking without touching the description
// the children share (they would start seeing EAGAIN). Writes then wait in the
// event loop (queued-sink.ts's NonBlockingSink, woken by the addon's writable
// watch), a writer that pipes is paused while the reader is behind, and exit
// drops whatever is still queued. Files and terminals, which do not stall like
// that, are written through the thread pool (ThreadedSink). Neither loads
// node:net nor node:stream: a plain run's log never costs their modules.
// Without the addon (the webhook, which never loads it), a pipe gets node:net's
// Socket over the reopened descriptor instead, as it always did.

/** What the log and the pipes of output use of a sink: a Writable's write, queue length, and its 'drain' and 'close'. */
export interface OutputSink {
  /** Queues `chunk`; `done` is called once it is written or dropped. False past the high-water mark: wait for 'drain'. */
  write(chunk: string | Uint8Array, done?: () => void): boolean;
  /** Bytes queued and not yet written. */
  readonly writableLength: number;
  /** The reader went away (EPIPE): everything written from now on is dropped. */
  readonly destroyed: boolean;
  on(event: 'drain' | 'close', listener: () => void): this;
  off(event: 'drain' | 'close', listener: () => void): this;
  setMaxListeners(count: number): this;
}

const sinks = new Map<number, OutputSink>();

/** One sink per descriptor (1 or 2), shared by every process whose output passes through. */
export function outputSink(fd: number): OutputSink {
  let sink = sinks.get(fd);
  if (sink === undefined) {
    sink = openSink(fd);
    // Each process piping in adds its listeners.
    sink.setMaxListeners(0);
    sinks.set(fd, sink);
  }
  return sink;
}

function openSink(fd: number): OutputSink {
  try {
    if (fstatSync(fd).isFIFO()) {
      // O_NONBLOCK on open: with no reader left, fail (ENXIO) instead of waiting for one.
      const own = openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY | constants.O_NONBLOCK);
      const watchWritable = addonWatchWritable();
      return watchWritable === undefined ? socketSink(own) : new NonBlockingSink(own, watchWritable);
    }
  } catch {
    // No /proc, or no reader: fall through to the thread pool.
  }
  return new ThreadedSink(fd);
}

/** The addon's writable watch, if this process loaded the addon (a run does, before its log opens). */
function addonWatchWritable(): WatchWritable | undefined {
  const api = loadedNativeProcessApi();
  return api === undefined ? undefined : api.watchWritable.bind(api);
}

function socketSink(fd: number): OutputSink {
  const { Socket } = lazyNet();
  const socket = new Socket({ fd, readable: false, writable: true });
  // A reader that went away (EPIPE) must not crash PID 1; the output is lost, nothing else.
  socket.on('error', () => {});
  return socket;
}

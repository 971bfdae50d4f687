import { constants, createWriteStream, fstatSync, openSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Writable } from 'node:stream';

// Where output that passes through the supervisor (a sidecar with a log probe)
// goes on to the container log. process.stdout will not do: on Linux its writes
// to pipes are synchronous, so a stalled log reader would freeze PID 1 —
// signals, reaping, probes, the exit itself. A write stream served by libuv's
// thread pool is no better: a write stuck on a full pipe keeps Node from ever
// exiting (it joins those threads at exit).
//
// So a pipe is reopened through /proc/self/fd: a new open file description of
// the same pipe, which can be non-blocking without touching the description
// the children share (they would start seeing EAGAIN). Writes then wait in the
// event loop, pipe() pauses the child while the reader is behind, and exit
// drops whatever is still queued. Files and terminals, which do not stall like
// that, get a plain write stream.

const sinks = new Map<number, Writable>();

/** One sink per descriptor (1 or 2), shared by every process whose output passes through. */
export function outputSink(fd: number): Writable {
  let sink = sinks.get(fd);
  if (sink === undefined) {
    sink = openSink(fd);
    // A reader that went away (EPIPE) must not crash PID 1; the output is lost, nothing else.
    sink.on('error', () => {});
    // Each process piping in adds its listeners.
    sink.setMaxListeners(0);
    sinks.set(fd, sink);
  }
  return sink;
}

function openSink(fd: number): Writable {
  try {
    if (fstatSync(fd).isFIFO()) {
      // O_NONBLOCK on open: with no reader left, fail (ENXIO) instead of waiting for one.
      const own = openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY | constants.O_NONBLOCK);
      return new Socket({ fd: own, readable: false, writable: true });
    }
  } catch {
    // No /proc, or no reader: fall through to the plain stream.
  }
  return createWriteStream('', { fd, autoClose: false });
}

import { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { createLineFormat } from '../output/line-format.ts';
import { createLineWriter } from '../output/line-writer.ts';
import { outputSink } from '../output/output-sink.ts';
import { pipeOutput } from '../output/pipe-output.ts';
import type { OutputStream, SpawnRequest, SpawnResult } from './child.ts';
import type { PreparedSpawn } from './prepare-spawn.ts';
import { forkChild, watchNativeChild } from './spawn-native.ts';
import type { SpawnApi } from '../os/addon.ts';

// The long-lived children whose spawn needs a pipe: output that passes
// through sidecar-init (prefixed, teed to a log probe, captured) and s6's
// notification-fd. The addon forks them like every other child (spawn.c)
// with the pipes it made, and the reaper reaps them; here the read ends
// become sockets on the event loop, which reads them without ever blocking
// PID 1 and stops reading (so the child waits on a full pipe) while the log
// is behind. Loaded only for a plan that has such a process (spawn.ts): it
// brings net and the streams.

const OUTPUT_FD: Readonly<Record<OutputStream, number>> = { stdout: 1, stderr: 2 };

/** The modes whose stdout and stderr are pipes to sidecar-init; 'inherit' and 'output' pipe only a readiness fd. */
function pipesOutput(stdio: SpawnRequest['stdio']): boolean {
  return stdio === 'tee' || stdio === 'capture' || stdio === 'inherit-tee';
}

export function spawnWithPipes(api: SpawnApi, request: SpawnRequest, prepared: PreparedSpawn): SpawnResult {
  const output = pipesOutput(request.stdio);
  const { readinessFd } = request;
  const pipeTo = [...(output ? [OUTPUT_FD.stdout, OUTPUT_FD.stderr] : []), ...(readinessFd === undefined ? [] : [readinessFd])];
  // Registered in nativeChildren in this same tick (watchNativeChild), before any SIGCHLD is handled.
  const spawned = forkChild(api, request, prepared, pipeTo);
  if (!spawned.ok) return spawned;
  const readables = spawned.pipes.map(openReadEnd);
  const [stdout, stderr] = output ? readables : [];
  if (stdout !== undefined && stderr !== undefined) {
    routeOutput(stdout, 'stdout', request);
    routeOutput(stderr, 'stderr', request);
  }
  const child = watchNativeChild(spawned.pid, 'session', {
    // The exit is not enough: a background grandchild holding the pipes (`sh -c 'daemon &'`) keeps them open.
    outputClosed: Promise.all([stdout, stderr].map(closed)).then(() => undefined),
    readinessPipe: readinessFd === undefined ? undefined : readables.at(-1),
  });
  return { ok: true, child };
}

/** A read end from the addon as a socket on the loop: non-blocking reads, end at EOF, closed once read to the end. */
function openReadEnd(fd: number): Readable {
  const socket = new Socket({ fd, readable: true, writable: false });
  // A broken pipe only ends that output early; it must never reach PID 1 as an unhandled 'error'.
  socket.on('error', ignore);
  return socket;
}

function closed(readable: Readable | undefined): Promise<void> {
  if (readable === undefined || readable.closed) return Promise.resolve();
  return new Promise((resolve) => readable.once('close', () => resolve()));
}

/**
 * Hands each chunk to onOutput and, for 'tee' and 'inherit-tee', passes it on
 * to the supervisor's own stdout or stderr (see output-sink.ts for why not
 * through process.stdout): unchanged, or line by line as request.lines says.
 * pipeOutput pauses the child's output while the log reader is behind, so
 * back-pressure lands on the child, not on the supervisor.
 */
function routeOutput(readable: Readable, stream: OutputStream, request: SpawnRequest): void {
  if (request.stdio === 'tee' || request.stdio === 'inherit-tee') {
    const { lines } = request;
    const writer =
      lines === undefined
        ? new PassThrough()
        : createLineWriter(createLineFormat({ mode: lines.mode, name: request.name, width: lines.width, stream }));
    void pipeOutput(readable, writer, outputSink(OUTPUT_FD[stream]));
  }
  const { onOutput } = request;
  if (onOutput !== undefined) readable.on('data', (chunk: Buffer) => onOutput(chunk, stream));
  // Nobody reads captured output: drain it, or the child would block on a full pipe.
  else if (request.stdio === 'capture') readable.resume();
}

function ignore(): void {}

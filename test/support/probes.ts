import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { expect } from 'vitest';
import type { Probe, ProbeOutcome } from '../../src/probes/probe.ts';

// Shared by the probe-loop tests (readiness, liveness, file, log).

/** Handles that would keep the event loop alive, or hold a socket, a watch or a child. */
const WATCHED_RESOURCES = ['Timeout', 'TCPSocketWrap', 'TCPWrap', 'ProcessWrap', 'PipeWrap', 'FSEventWrap', 'FSReqCallback'] as const;

export type ResourceCounts = Record<string, number>;

export function countResources(): ResourceCounts {
  const counts: ResourceCounts = Object.fromEntries(WATCHED_RESOURCES.map((kind) => [kind, 0]));
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind in counts) counts[kind]! += 1;
  }
  return counts;
}

/** libuv closes a handle a loop turn after it is released, so this polls briefly; a leak never goes away. */
export async function expectNoResourcesBeyond(before: ResourceCounts): Promise<void> {
  await expect.poll(() => WATCHED_RESOURCES.filter((kind) => countResources()[kind]! > before[kind]!)).toEqual([]);
}

/** A probe that records when each attempt started and ended around a real one (or a scripted answer). */
export interface RecordingProbe extends Probe {
  readonly attempts: { readonly startedAt: number; endedAt?: number; outcome?: ProbeOutcome }[];
}

export function recording(inner: Pick<Probe, 'check' | 'subscribe'>, description = 'recorded'): RecordingProbe {
  const attempts: RecordingProbe['attempts'] = [];
  const probe: RecordingProbe = {
    description,
    attempts,
    async check(timeoutMs, signal) {
      const record: RecordingProbe['attempts'][number] = { startedAt: performance.now() };
      attempts.push(record);
      const outcome = await inner.check(timeoutMs, signal);
      record.endedAt = performance.now();
      record.outcome = outcome;
      return outcome;
    },
  };
  if (inner.subscribe !== undefined) probe.subscribe = inner.subscribe.bind(inner);
  return probe;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A TCP server on 127.0.0.1 that can be closed and opened again on the same port. */
export interface Toggle {
  readonly port: number;
  open(): Promise<void>;
  close(): Promise<void>;
}

export async function createToggleServer(): Promise<Toggle> {
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  let port = 0;
  const toggle: Toggle = {
    get port() {
      return port;
    },
    open: () =>
      new Promise((resolve, reject) => {
        const next = createServer((socket) => {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        });
        next.once('error', reject);
        next.listen(port, '127.0.0.1', () => {
          server = next;
          const address = next.address();
          if (address !== null && typeof address !== 'string') port = address.port;
          resolve();
        });
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      const closing = server;
      server = undefined;
      if (closing !== undefined) await new Promise((resolve) => closing.close(resolve));
    },
  };
  await toggle.open();
  return toggle;
}

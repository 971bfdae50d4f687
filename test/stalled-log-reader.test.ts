// A log reader that stops reading (a full stderr pipe, as with a stuck log
// collector) must not freeze the supervisor: its own lines wait in a bounded
// queue or are dropped and counted, and SIGTERM still ends everything within
// the grace budget. stderr is a real FIFO here, as in a container runtime.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { writeConfig, yamlArgv } from './support/commands.ts';
import { createEventLog } from './support/events.ts';
import type { EventLog } from './support/events.ts';
import { killMarkedProcesses, waitForNoLeftovers } from './support/leftovers.ts';
import { BIN_COMMAND, FIXTURES, MARKER_VARIABLE } from './support/supervisor.ts';

/** A generous liveness bound for "SIGTERM was honoured": the grace is 1 s. */
const ANSWERS_WITHIN_MS = 10_000;
/** A liveness bound on waiting for 300 restarts, generous for a loaded machine. */
const WAIT_MS = 90_000;

interface StalledRun {
  readonly child: ChildProcess;
  readonly marker: string;
  readonly exited: Promise<number | null>;
  /** The FIFO's read end, not read until the test says so. */
  readonly reader: number;
}

const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A FIFO already full (so every write to it would block), and the supervisor writing its stderr into it. */
function startWithFullStderr(args: readonly string[], events: EventLog): StalledRun {
  const fifo = join(events.dir, 'stderr');
  execFileSync('mkfifo', [fifo]);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const filler = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  const chunk = Buffer.alloc(4096, 'x');
  for (;;) {
    try {
      writeSync(filler, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw error;
    }
  }
  closeSync(filler);
  // A blocking description for the supervisor's stderr, as a runtime hands it over.
  const writer = openSync(fifo, constants.O_WRONLY);
  const marker = randomUUID();
  const [command, ...prefix] = BIN_COMMAND;
  const child = spawn(command!, [...prefix, ...args], {
    env: { ...process.env, EVENTS: events.file, [MARKER_VARIABLE]: marker },
    stdio: ['ignore', 'ignore', writer],
  });
  closeSync(writer);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanups.push(() => {
    child.kill('SIGKILL');
    killMarkedProcesses(marker);
    try {
      closeSync(reader);
    } catch {
      // Already closed by the socket that read it.
    }
    events.remove();
  });
  return { child, marker, exited, reader };
}

function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timed out'> {
  return Promise.race([promise, new Promise<'timed out'>((resolve) => setTimeout(resolve, ms, 'timed out'))]);
}

describe('with a log reader that has stopped reading', () => {
  it('the supervisor starts the app and honours SIGTERM within the grace', async () => {
    const events = createEventLog();
    const app = yamlArgv('/bin/sh', '-c', `. ${FIXTURES}record.sh; NAME=app; record start; exec sleep 1000`);
    const config = writeConfig(events.dir, ['grace: 1s', 'processes:', '  - name: app', '    role: app', `    command: ${app}`]);
    const run = startWithFullStderr(['-c', config], events);
    // Blocking writes would freeze it at its first log line, before the app starts.
    await events.waitFor('app start');
    run.child.kill('SIGTERM');
    expect(await within(run.exited, ANSWERS_WITHIN_MS)).not.toBe('timed out');
    expect(await waitForNoLeftovers(run.marker)).toEqual([]);
  });

  it('drops lines rather than wait, and says how many once the reader is back', { timeout: 120_000 }, async () => {
    const events = createEventLog();
    const sidecar = yamlArgv('/bin/sh', '-c', `. ${FIXTURES}record.sh; NAME=s; record start; exit 1`);
    const app = yamlArgv('/bin/sh', '-c', `. ${FIXTURES}record.sh; NAME=app; record start; exec sleep 1000`);
    const config = writeConfig(events.dir, [
      'grace: 1s',
      'processes:',
      '  - name: s',
      '    role: sidecar',
      `    command: ${sidecar}`,
      '    restart: always',
      '    backoff: { initial: 1ms, max: 1ms }',
      '  - name: app',
      '    role: app',
      `    command: ${app}`,
    ]);
    const run = startWithFullStderr(['-c', config], events);
    // Each restart logs about 600 bytes: 300 of them overflow the 64 KiB queue.
    await waitUntil(() => events.sequence().filter((entry) => entry === 's start').length >= 300);
    const lines = readLines(run.reader);
    const dropped = await lines.waitFor((line) => line.includes('"event":"log-lines-dropped"'));
    expect(JSON.parse(dropped).count).toBeGreaterThan(0);
    run.child.kill('SIGTERM');
    expect(await within(run.exited, ANSWERS_WITHIN_MS)).not.toBe('timed out');
    expect(await waitForNoLeftovers(run.marker)).toEqual([]);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts reading the FIFO: every complete line, and a wait for one that matches. */
function readLines(fd: number): { waitFor(match: (line: string) => boolean): Promise<string> } {
  const socket = new Socket({ fd, readable: true, writable: false });
  cleanups.push(() => socket.destroy());
  let partial = '';
  const seen: string[] = [];
  const waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      seen.push(line);
      for (const waiter of [...waiters]) {
        if (!waiter.match(line)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  return {
    waitFor(match) {
      const found = seen.find(match);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../test/support/commands.ts';
import { readPid } from '../../test/support/pid-file.ts';
import { useProcessSandbox } from '../../test/support/process-sandbox.ts';
import { isAlive } from '../process/proc-table.ts';
import { createExecProbe } from './exec-probe.ts';
import type { Probe, ProbeOutcome } from './probe.ts';
import { createTcpProbe } from './tcp-probe.ts';
import { waitForReady } from './wait-for-ready.ts';

/**
 * Node timers run on the loop's cached clock, so the deadline timer may fire a
 * few ms early relative to performance.now(), and any timer late under load.
 */
const EARLY_MS = 5;
const LATE_MS = 80;
const MEASUREMENT_NOISE_MS = 0.1;
const PROMPT_MS = 100;

const failNow: ProbeOutcome = { ok: false, reason: 'not yet' };

interface Recorded {
  readonly startedAt: number;
  readonly timeoutMs: number;
  endedAt?: number;
}

/** A probe whose attempts are scripted, recording when each started and ended. */
function scriptedProbe(answer: (attempt: number, signal: AbortSignal) => Promise<ProbeOutcome>): Probe & { attempts: Recorded[] } {
  const attempts: Recorded[] = [];
  return {
    description: 'scripted',
    attempts,
    async check(timeoutMs, signal) {
      const record: Recorded = { startedAt: performance.now(), timeoutMs };
      attempts.push(record);
      const outcome = await answer(attempts.length, signal);
      record.endedAt = performance.now();
      return outcome;
    },
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Settles only when aborted, ignoring its own timeout: the worst-behaved attempt. */
function untilAborted(signal: AbortSignal): Promise<ProbeOutcome> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ ok: false, reason: 'aborted' }), { once: true }));
}

const noAbort = () => new AbortController().signal;
const execFileAsync = promisify(execFile);

describe('waitForReady scheduling', () => {
  it('starts the first attempt at once and the next ones every period', async () => {
    const periodMs = 40;
    const probe = scriptedProbe(async (attempt) => (attempt === 4 ? { ok: true } : failNow));
    const calledAt = performance.now();
    const result = await waitForReady(probe, { periodMs, timeoutMs: 1_000, deadlineMs: 5_000 }, noAbort());

    expect(result).toMatchObject({ kind: 'ready', attempts: 4 });
    expect(probe.attempts[0]!.startedAt - calledAt).toBeLessThan(LATE_MS);
    for (let index = 1; index < probe.attempts.length; index += 1) {
      const gap = probe.attempts[index]!.startedAt - probe.attempts[index - 1]!.startedAt;
      // Measured inside the probe, a few µs after the scheduler's own reading.
      expect(gap).toBeGreaterThanOrEqual(periodMs - MEASUREMENT_NOISE_MS);
      expect(gap).toBeLessThan(periodMs + LATE_MS);
    }
  });

  it('never overlaps attempts: a slow one is followed right after it ends', async () => {
    const probe = scriptedProbe(async (attempt) => {
      await delay(60);
      return attempt === 3 ? { ok: true } : failNow;
    });
    const result = await waitForReady(probe, { periodMs: 20, timeoutMs: 1_000, deadlineMs: 5_000 }, noAbort());

    expect(result).toMatchObject({ kind: 'ready', attempts: 3 });
    for (let index = 1; index < probe.attempts.length; index += 1) {
      const previousEnd = probe.attempts[index - 1]!.endedAt!;
      const start = probe.attempts[index]!.startedAt;
      expect(start).toBeGreaterThanOrEqual(previousEnd);
      expect(start - previousEnd).toBeLessThan(LATE_MS);
    }
  });

  it('bounds each attempt by the time left to the deadline', async () => {
    const probe = scriptedProbe(async () => {
      await delay(50);
      return failNow;
    });
    await waitForReady(probe, { periodMs: 10, timeoutMs: 1_000, deadlineMs: 120 }, noAbort());
    expect(probe.attempts[0]!.timeoutMs).toBeLessThanOrEqual(120);
    expect(probe.attempts.at(-1)!.timeoutMs).toBeLessThan(120 - 50 + EARLY_MS);
  });

  it('ends at the deadline even while an attempt is in flight', async () => {
    const probe = scriptedProbe(async (_attempt, signal) => untilAborted(signal));
    const startedAt = performance.now();
    const result = await waitForReady(probe, { periodMs: 10, timeoutMs: 10_000, deadlineMs: 150 }, noAbort());
    const elapsedMs = performance.now() - startedAt;

    expect(result).toEqual({ kind: 'deadline', attempts: 1, lastFailure: 'no attempt finished before the deadline' });
    expect(elapsedMs).toBeGreaterThanOrEqual(150 - EARLY_MS);
    expect(elapsedMs).toBeLessThan(150 + LATE_MS);
  });

  it('returns aborted without an attempt when the signal is already aborted', async () => {
    const probe = scriptedProbe(async () => ({ ok: true }));
    const result = await waitForReady(probe, { periodMs: 10, timeoutMs: 100, deadlineMs: 1_000 }, AbortSignal.abort());
    expect(result).toEqual({ kind: 'aborted' });
    expect(probe.attempts).toHaveLength(0);
  });

  it('aborts promptly during the pause between attempts', async () => {
    const probe = scriptedProbe(async () => failNow);
    const controller = new AbortController();
    const waiting = waitForReady(probe, { periodMs: 10_000, timeoutMs: 100, deadlineMs: 60_000 }, controller.signal);
    await delay(30);
    const abortedAt = performance.now();
    controller.abort();
    await expect(waiting).resolves.toEqual({ kind: 'aborted' });
    expect(performance.now() - abortedAt).toBeLessThan(PROMPT_MS);
    expect(probe.attempts).toHaveLength(1);
  });

  it('reports aborted, not ready, when the caller aborts during a passing attempt', async () => {
    const controller = new AbortController();
    const probe = scriptedProbe(async () => {
      controller.abort();
      return { ok: true };
    });
    await expect(waitForReady(probe, { periodMs: 10, timeoutMs: 100, deadlineMs: 1_000 }, controller.signal)).resolves.toEqual({
      kind: 'aborted',
    });
  });
});

describe('waitForReady with real probes', () => {
  const sandbox = useProcessSandbox('wait-for-ready-test-');

  it('gives up at the deadline on a closed port, with the last failure', async () => {
    const port = await freePort();
    const startedAt = performance.now();
    const result = await waitForReady(createTcpProbe('127.0.0.1', port), { periodMs: 50, timeoutMs: 1_000, deadlineMs: 300 }, noAbort());
    const elapsedMs = performance.now() - startedAt;

    expect(result).toMatchObject({ kind: 'deadline', lastFailure: `tcp://127.0.0.1:${port}: ECONNREFUSED` });
    if (result.kind === 'deadline') expect(result.attempts).toBeGreaterThanOrEqual(4);
    expect(elapsedMs).toBeGreaterThanOrEqual(300 - EARLY_MS);
    expect(elapsedMs).toBeLessThan(300 + LATE_MS);
  });

  it('on abort, kills the exec attempt in flight and leaves no timer, socket or process behind', async () => {
    const pidFile = join(sandbox.workDir, 'pid');
    const probe = createExecProbe(['sh', '-c', `echo $$ > ${pidFile}; exec sleep 300`], { spawner: sandbox.spawner, env: {}, cwd: undefined });
    const before = countResources();
    const controller = new AbortController();
    const waiting = waitForReady(probe, { periodMs: 100, timeoutMs: 30_000, deadlineMs: 60_000 }, controller.signal);
    await expect.poll(() => readPid(pidFile)).toBeGreaterThan(0);
    const pid = readPid(pidFile);
    sandbox.track(pid);

    const abortedAt = performance.now();
    controller.abort();
    await expect(waiting).resolves.toEqual({ kind: 'aborted' });
    expect(performance.now() - abortedAt).toBeLessThan(PROMPT_MS);
    expect(isAlive(pid)).toBe(false);
    expect([...sandbox.spawner.ownedPids]).toEqual([]);
    await expectNoHandlesBeyond(before);
  });

  it('on the deadline, kills the exec attempt in flight', async () => {
    const pidFile = join(sandbox.workDir, 'pid');
    const probe = createExecProbe(['sh', '-c', `echo $$ > ${pidFile}; exec sleep 300`], { spawner: sandbox.spawner, env: {}, cwd: undefined });
    const before = countResources();
    const result = await waitForReady(probe, { periodMs: 100, timeoutMs: 30_000, deadlineMs: 200 }, noAbort());

    expect(result).toMatchObject({ kind: 'deadline' });
    const pid = readPid(pidFile);
    sandbox.track(pid);
    expect(isAlive(pid)).toBe(false);
    await expectNoHandlesBeyond(before);
  });
});

describe('waitForReady leaves nothing behind', () => {
  // The strictest check there is: a fresh Node process that runs the wait and
  // then has nothing left to do must exit by itself. A leaked deadline timer (60s),
  // socket or child would hold it past the bound.
  const EXIT_BOUND_MS = 5_000;

  // The deadline is far beyond the bound except where the deadline is the point.
  it.each([
    ['an exec attempt aborted in flight', `createExecProbe(['sleep', '300'], createSpawner())`, 'setTimeout(() => controller.abort(), 300);', 60_000, 'aborted'],
    ['a tcp wait aborted between attempts', `createTcpProbe('127.0.0.1', 1)`, 'setTimeout(() => controller.abort(), 300);', 60_000, 'aborted'],
    ['a tcp wait that passes', `createTcpProbe('127.0.0.1', port)`, '', 60_000, 'ready'],
    ['a wait that hits its deadline', `createExecProbe(['sleep', '300'], createSpawner())`, '', 500, 'deadline'],
  ])('after %s', async (_case, probe, trigger, deadlineMs, kind) => {
    const script = `
      import { createServer } from 'node:net';
      import { createSpawner } from ${JSON.stringify(new URL('../process/spawn.ts', import.meta.url).pathname)};
      import { createExecProbe } from ${JSON.stringify(new URL('./exec-probe.ts', import.meta.url).pathname)};
      import { createTcpProbe } from ${JSON.stringify(new URL('./tcp-probe.ts', import.meta.url).pathname)};
      import { waitForReady } from ${JSON.stringify(new URL('./wait-for-ready.ts', import.meta.url).pathname)};
      const server = createServer((socket) => socket.destroy()).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const port = server.address().port;
      const controller = new AbortController();
      ${trigger}
      const result = await waitForReady(${probe}, { periodMs: 100, timeoutMs: 30000, deadlineMs: ${deadlineMs} }, controller.signal);
      server.close();
      console.log(JSON.stringify(result));
    `;
    const startedAt = performance.now();
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], { timeout: EXIT_BOUND_MS, killSignal: 'SIGKILL' });
    expect(JSON.parse(stdout)).toMatchObject({ kind });
    expect(performance.now() - startedAt).toBeLessThan(EXIT_BOUND_MS);
  });
});

/** Handles that would keep the event loop alive, or hold a socket or a child. */
const WATCHED_RESOURCES = ['Timeout', 'TCPSocketWrap', 'TCPWrap', 'ProcessWrap'] as const;

function countResources(): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(WATCHED_RESOURCES.map((kind) => [kind, 0]));
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind in counts) counts[kind]! += 1;
  }
  return counts;
}

// libuv closes a process handle one loop turn after the exit is reported, so the
// check polls briefly; a leaked timer or socket would never go away.
async function expectNoHandlesBeyond(before: Record<string, number>): Promise<void> {
  await expect
    .poll(() => WATCHED_RESOURCES.filter((kind) => countResources()[kind]! > before[kind]!), { timeout: 1_000 })
    .toEqual([]);
}

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORWARD_WINDOW_MS } from '../src/process/signal-forwarder.ts';
import { fixtureArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { useTempDirs } from './support/temp-dirs.ts';
import { supervisorPid } from './support/namespaces.ts';
import { FIXTURES, startSupervisor } from './support/supervisor.ts';
import type { RunningSupervisor } from './support/supervisor.ts';

// What follows a forwarded signal is deferred and coalesced: the addon's
// handler passes each signal on and counts it, and JavaScript hears of the
// counts at most once per FORWARD_WINDOW_MS, or at once before any other
// event, so that the log's order stays true. Real signals to a real
// supervisor as PID 1; what the app received is in its files.

const tempDir = useTempDirs('forward');
const { track, events: createEvents, expectNothingLeft } = useHarness();
const SERIES = 40;
/** How long the neighbour floods the supervisor: long enough for hundreds of thousands of kill()s. */
const FLOOD_MS = 500;
/** What the supervisor's resident memory may grow by through the flood: the counters do not grow; this is room for V8's heap. */
const FLOOD_GROWTH_KIB = 8 * 1024;

/** The forwarded lines of `signal`, and the index in the log of the first line about the stop signal. */
function forwardedLines(run: RunningSupervisor, signal: NodeJS.Signals) {
  const lines = run.logs.filter((line) => line.event === 'forwarded' && line.signal === signal);
  const stopAt = run.logs.findIndex((line) => line.event === 'signal' && line.signal === 'SIGTERM');
  return { lines, stopAt, lastAt: Math.max(...lines.map((line) => run.logs.indexOf(line))) };
}

/** At most one line per window: how many windows `elapsedMs` can hold, and the one open at its end. */
const linesWithin = (elapsedMs: number) => Math.ceil(elapsedMs / FORWARD_WINDOW_MS) + 1;

function residentKiB(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

describe('forwarded signals, told in counts', () => {
  it('as PID 1, a series of SIGHUPs each reaches the app, and is logged in counts, at most one line per window, all before SIGTERM', async () => {
    const events = createEvents();
    const run = track(startSupervisor(['--', ...fixtureArgv('record-signals.sh', 'app')], { pid1: true, env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    const supervisor = supervisorPid(run);
    const started = performance.now();
    for (let sent = 1; sent <= SERIES; sent += 1) {
      process.kill(supervisor, 'SIGHUP');
      // The next only once the app had this one: every delivery reaches the supervisor's handler, none merged by the kernel.
      await expect.poll(() => events.read().filter((entry) => entry.event === 'got-HUP').length).toBe(sent);
    }
    const elapsedMs = performance.now() - started;
    // At once, within the last window: its counts must still come before the stop's lines.
    process.kill(supervisor, 'SIGTERM');
    expect((await run.exited).code).toBe(0);
    const { lines, stopAt, lastAt } = forwardedLines(run, 'SIGHUP');
    expect(lines.reduce((sum, line) => sum + (line.count as number), 0)).toBe(SERIES);
    expect(lines.length).toBeLessThanOrEqual(linesWithin(elapsedMs));
    expect(lastAt).toBeLessThan(stopAt);
    expect(lines.every((line) => line.level === 'info' && line.msg === 'forwarded signal' && line.proc === 'app')).toBe(true);
    const app = events.sequence().filter((entry) => entry.startsWith('app '));
    expect(app).toEqual(['app start', ...Array<string>(SERIES).fill('app got-HUP'), 'app stop']);
    await expectNothingLeft(run);
  });

  it('as PID 1, under a neighbour’s flood of SIGHUP, stays bounded in memory and log lines and still stops on SIGTERM', async () => {
    const events = createEvents();
    const countFile = join(tempDir(), 'count');
    const run = track(
      startSupervisor(['--', 'python3', `${FIXTURES}count-signals.py`, 'app'], {
        pid1: true,
        env: { EVENTS: events.file, COUNT_FILE: countFile },
      }),
    );
    await events.waitFor('app start');
    const supervisor = supervisorPid(run);
    const before = residentKiB(supervisor);
    const started = performance.now();
    const sent = await flood(supervisor, FLOOD_MS);
    const grew = residentKiB(supervisor) - before;
    process.kill(supervisor, 'SIGTERM');
    expect((await run.exited).code).toBe(0);
    const elapsedMs = performance.now() - started;
    const { lines, stopAt, lastAt } = forwardedLines(run, 'SIGHUP');
    const forwarded = lines.reduce((sum, line) => sum + (line.count as number), 0);
    const received = Number(readFileSync(countFile, 'utf8'));
    // The kernel merges a pending signal with the next: each side gets at most what was sent its way.
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThanOrEqual(forwarded);
    expect(forwarded).toBeLessThanOrEqual(sent);
    expect(lines.length).toBeLessThanOrEqual(linesWithin(elapsedMs));
    expect(lastAt).toBeLessThan(stopAt);
    expect(grew).toBeLessThan(FLOOD_GROWTH_KIB);
    await expectNothingLeft(run);
  });

  it('is described with the window it has: the log and lifecycle pages say it', () => {
    for (const page of ['observability.md', 'lifecycle.md', 'architecture.md', 'development.md']) {
      expect(readFileSync(new URL(`../docs/${page}`, import.meta.url), 'utf8')).toContain(`${FORWARD_WINDOW_MS} ms`);
    }
  });
});

/** A neighbour sending SIGHUP to `pid` as fast as it can for `ms`; resolves with how many it sent. */
function flood(pid: number, ms: number): Promise<number> {
  const script = `
import os, signal, sys, time
pid, end, sent = int(sys.argv[1]), time.monotonic() + float(sys.argv[2]) / 1000, 0
while time.monotonic() < end:
    os.kill(pid, signal.SIGHUP)
    sent += 1
print(sent)
`;
  const sender = spawn('python3', ['-c', script, String(pid), String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  sender.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    sender.once('error', reject);
    sender.once('exit', (code) => (code === 0 ? resolve(Number(output)) : reject(new Error(`the flood's sender exited with ${code}`))));
  });
}

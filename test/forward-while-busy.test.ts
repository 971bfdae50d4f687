import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixtureArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { supervisorPid } from './support/namespaces.ts';
import { FIXTURES, startSupervisor } from './support/supervisor.ts';

// A signal for the app is passed on from the addon's signal handler, so
// nothing the JavaScript thread is doing delays it, as with tini. Made real
// with a test-only hook (fixtures/busy-on-usr2.mjs) that holds the supervisor's
// JavaScript thread in a synchronous loop for BUSY_MS on SIGUSR2.

const { track, events: createEvents, expectNothingLeft } = useHarness();
const BUSY_MS = 3_000;
/**
 * A generous liveness bound for SIGHUP to reach the app while the loop runs:
 * a few milliseconds are expected (the fixture's own `date` for the record
 * among them), and a supervisor that waits for its JavaScript takes the whole
 * loop, three times as long.
 */
const FORWARDED_WITHIN_MS = 1_000;
const HOOK = pathToFileURL(`${FIXTURES}busy-on-usr2.mjs`).href;

describe('a signal for the app, while the JavaScript thread is busy', () => {
  it('as PID 1, reaches the app at once, and is logged and told to the lifecycle once the thread is back', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor(['--', ...fixtureArgv('record-signals.sh', 'app')], {
        pid1: true,
        nodeFlags: ['--import', HOOK],
        env: { EVENTS: events.file, BUSY_MS: String(BUSY_MS) },
      }),
    );
    await events.waitFor('app start');
    const supervisor = supervisorPid(run);
    // Forwarded (from the handler too), then the hook's listener holds the thread.
    process.kill(supervisor, 'SIGUSR2');
    await events.waitFor('init busy-start', 'app got-USR2');
    const sentAt = Date.now();
    process.kill(supervisor, 'SIGHUP');
    await events.waitFor('app got-HUP');
    const recorded = events.read();
    const at = (event: string) => recorded.find((entry) => entry.event === event)?.ns ?? 0n;
    expect(Number(at('got-HUP') / 1_000_000n) - sentAt).toBeLessThan(FORWARDED_WITHIN_MS);
    // The app had it while the loop still held the thread: no JavaScript ran for it.
    expect(at('busy-end')).toBe(0n);
    await events.waitFor('init busy-end');
    expect(at('got-HUP')).toBeLessThan(events.read().find((entry) => entry.event === 'busy-end')!.ns);
    // Once back, one line per signal, and SIGTERM still goes through the lifecycle.
    await run.waitForLog((line) => line.event === 'forwarded' && line.signal === 'SIGHUP');
    process.kill(supervisor, 'SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(run.logs.filter((line) => line.event === 'forwarded').map((line) => line.signal)).toEqual(['SIGUSR2', 'SIGHUP']);
    expect(events.sequence().filter((entry) => entry.startsWith('app '))).toEqual(['app start', 'app got-USR2', 'app got-HUP', 'app stop']);
    await expectNothingLeft(run);
  });
});

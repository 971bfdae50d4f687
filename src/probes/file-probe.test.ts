import { mkdir, rm, writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useProcessSandbox } from '../../test/support/process-sandbox.ts';
import { createProbe } from './create-probe.ts';
import { createFileProbe, FILE_POLL_MS } from './file-probe.ts';
import { countResources, delay, expectNoResourcesBeyond, recording } from '../../test/support/probes.ts';
import { watchReadiness } from './watch-readiness.ts';

const ATTEMPT_TIMEOUT_MS = 1_000;
/** Generous bound for an inotify event, or a poll tick, to reach the test on a loaded machine. */
const EVENT_BOUND_MS = 3_000;
/** Long enough that only the event path can explain an answer within EVENT_BOUND_MS. */
const LONG_PERIOD_MS = 20_000;

const sandbox = useProcessSandbox('file-probe-test-');
const noAbort = () => new AbortController().signal;

/** Subscribes and resolves with the time of the first wake. */
function firstWake(probe: ReturnType<typeof createFileProbe>, signal: AbortSignal): Promise<number> {
  return new Promise((resolve) => probe.subscribe!(() => resolve(performance.now()), signal));
}

describe('createFileProbe check', () => {
  it('fails while the file is missing, passes while it exists', async () => {
    const path = join(sandbox.workDir, 'ready');
    const probe = createFileProbe(path);
    expect(probe.description).toBe(`file:${path}`);
    await expect(probe.check(ATTEMPT_TIMEOUT_MS, noAbort())).resolves.toEqual({ ok: false, reason: `file:${path}: does not exist` });
    await writeFile(path, '');
    await expect(probe.check(ATTEMPT_TIMEOUT_MS, noAbort())).resolves.toEqual({ ok: true });
    await rm(path);
    await expect(probe.check(ATTEMPT_TIMEOUT_MS, noAbort())).resolves.toMatchObject({ ok: false });
  });

  it('passes for a directory or a socket path as well: existence is the test', async () => {
    await expect(createFileProbe(sandbox.workDir).check(ATTEMPT_TIMEOUT_MS, noAbort())).resolves.toEqual({ ok: true });
  });
});

describe('createFileProbe subscribe', () => {
  it('wakes when the file is created, through a watch on its directory', async () => {
    const path = join(sandbox.workDir, 'ready');
    const controller = new AbortController();
    const probe = createFileProbe(path);
    const woken = firstWake(probe, controller.signal);
    expect(countResources().FSEventWrap).toBeGreaterThan(0);
    await delay(20);
    const createdAt = performance.now();
    await writeFile(path, '');
    expect((await woken) - createdAt).toBeLessThan(EVENT_BOUND_MS);
    controller.abort();
  });

  it('wakes when the file arrives by rename (an atomic write)', async () => {
    const path = join(sandbox.workDir, 'ready');
    const controller = new AbortController();
    const woken = firstWake(createFileProbe(path), controller.signal);
    await writeFile(`${path}.tmp`, '');
    await rename(`${path}.tmp`, path);
    await expect(woken).resolves.toBeGreaterThan(0);
    controller.abort();
  });

  it('ignores other files in the directory', async () => {
    const controller = new AbortController();
    let wakes = 0;
    createFileProbe(join(sandbox.workDir, 'ready')).subscribe!(() => (wakes += 1), controller.signal);
    await writeFile(join(sandbox.workDir, 'unrelated'), '');
    await writeFile(join(sandbox.workDir, 'ready-not'), '');
    await delay(100);
    expect(wakes).toBe(0);
    controller.abort();
  });

  it('falls back to polling when the directory does not exist yet, and wakes once the file appears', async () => {
    const directory = join(sandbox.workDir, 'later');
    const path = join(directory, 'ready');
    const before = countResources();
    const controller = new AbortController();
    const woken = firstWake(createFileProbe(path), controller.signal);
    // No watch (the failed one's handle is closed a turn later): only the poll can see the file.
    await expect.poll(() => countResources().FSEventWrap).toBe(before.FSEventWrap);

    await mkdir(directory);
    await delay(FILE_POLL_MS * 2);
    const createdAt = performance.now();
    await writeFile(path, '');
    expect((await woken) - createdAt).toBeLessThan(EVENT_BOUND_MS);
    controller.abort();
    await expectNoResourcesBeyond(before);
  });

  it('releases its watch on abort', async () => {
    const before = countResources();
    const controller = new AbortController();
    let wakes = 0;
    createFileProbe(join(sandbox.workDir, 'ready')).subscribe!(() => (wakes += 1), controller.signal);
    expect(countResources().FSEventWrap).toBe(before.FSEventWrap! + 1);
    controller.abort();
    await expectNoResourcesBeyond(before);
    await writeFile(join(sandbox.workDir, 'ready'), '');
    await delay(50);
    expect(wakes).toBe(0);
  });

  it('does nothing when subscribed with an aborted signal', async () => {
    const before = countResources();
    createFileProbe(join(sandbox.workDir, 'ready')).subscribe!(() => undefined, AbortSignal.abort());
    expect(countResources()).toEqual(before);
  });
});

describe('file readiness through watchReadiness', () => {
  it('is ready within milliseconds of the file appearing, far sooner than the period', async () => {
    const path = join(sandbox.workDir, 'ready');
    const before = countResources();
    const controller = new AbortController();
    const changes: { ready: boolean; at: number }[] = [];
    const probe = recording(createFileProbe(path));
    watchReadiness(
      probe,
      { periodMs: LONG_PERIOD_MS, timeoutMs: ATTEMPT_TIMEOUT_MS, periodAfterStartMs: LONG_PERIOD_MS },
      (ready) => changes.push({ ready, at: performance.now() }),
      controller.signal,
    );
    // The first attempt (file missing) is over: from here only the event or the long period can notice the file.
    await expect.poll(() => probe.attempts[0]?.endedAt).toBeDefined();
    const createdAt = performance.now();
    await writeFile(path, '');
    await expect.poll(() => changes.length, { timeout: LONG_PERIOD_MS }).toBe(1);
    expect(changes[0]!.ready).toBe(true);
    expect(changes[0]!.at - createdAt).toBeLessThan(EVENT_BOUND_MS);

    // Removal is an event too: not ready again without waiting for the slow period.
    const removedAt = performance.now();
    await rm(path);
    await expect.poll(() => changes.length, { timeout: LONG_PERIOD_MS }).toBe(2);
    expect(changes[1]!.ready).toBe(false);
    expect(changes[1]!.at - removedAt).toBeLessThan(EVENT_BOUND_MS);

    controller.abort();
    await expectNoResourcesBeyond(before);
  });
});

describe('createProbe for file', () => {
  it("reads a relative path from the probed process's cwd", async () => {
    await writeFile(join(sandbox.workDir, 'ready'), '');
    const probe = createProbe({ kind: 'file', path: 'ready' }, { env: {}, cwd: sandbox.workDir });
    expect(probe.description).toBe(`file:${join(sandbox.workDir, 'ready')}`);
    await expect(probe.check(ATTEMPT_TIMEOUT_MS, noAbort())).resolves.toEqual({ ok: true });
  });
});

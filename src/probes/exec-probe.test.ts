import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Spawner } from '../process/child.ts';
import { createSpawner } from '../process/spawn.ts';
import { createExecProbe } from './exec-probe.ts';

const ATTEMPT_TIMEOUT_MS = 5_000;
const SHORT_TIMEOUT_MS = 200;
/** Generous bound on how late a killed attempt may come back. */
const KILL_SLACK_MS = 500;

let spawner: Spawner;
let workDir: string;
let reportedPids: number[];

beforeEach(async () => {
  spawner = createSpawner();
  workDir = await mkdtemp(join(tmpdir(), 'exec-probe-test-'));
  reportedPids = [];
});

afterEach(async () => {
  const survivors = reportedPids.filter(isAlive);
  for (const pid of survivors) process.kill(pid, 'SIGKILL');
  await rm(workDir, { recursive: true, force: true });
  expect(survivors).toEqual([]);
  expect([...spawner.ownedPids]).toEqual([]);
});

const noAbort = () => new AbortController().signal;

describe('createExecProbe', () => {
  it('succeeds when the command exits 0', async () => {
    await expect(createExecProbe(['true'], spawner).check(ATTEMPT_TIMEOUT_MS, noAbort())).resolves.toEqual({ ok: true });
  });

  it('fails with the exit code otherwise', async () => {
    await expect(createExecProbe(['sh', '-c', 'exit 3'], spawner).check(ATTEMPT_TIMEOUT_MS, noAbort())).resolves.toEqual({
      ok: false,
      reason: 'exec:sh -c exit 3: exited with code 3',
    });
  });

  it('fails with the spawn reason when the program does not exist', async () => {
    const outcome = await createExecProbe(['no-such-probe-program'], spawner).check(ATTEMPT_TIMEOUT_MS, noAbort());
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.reason).toContain('no-such-probe-program: command not found');
  });

  it('kills a hanging command and its children at the timeout, and returns after they are gone', async () => {
    const pids = join(workDir, 'pids');
    const probe = createExecProbe(['sh', '-c', `sleep 300 & echo "$$ $!" > ${pids}; wait`], spawner);
    const startedAt = performance.now();
    const outcome = await probe.check(SHORT_TIMEOUT_MS, noAbort());
    const elapsedMs = performance.now() - startedAt;

    expect(outcome).toEqual({ ok: false, reason: `timed out after ${SHORT_TIMEOUT_MS}ms` });
    expect(elapsedMs).toBeLessThan(SHORT_TIMEOUT_MS + KILL_SLACK_MS);
    const [shell, sleeper] = (await readFile(pids, 'utf8')).trim().split(' ').map(Number);
    reportedPids.push(shell!, sleeper!);
    // The shell was awaited before the outcome; the orphaned sleep is reaped by
    // whoever adopted it, so it is given a moment.
    expect(isAlive(shell!)).toBe(false);
    await expect.poll(() => isAlive(sleeper!)).toBe(false);
  });

  it('kills the command when aborted', async () => {
    const pidFile = join(workDir, 'pid');
    const controller = new AbortController();
    const attempt = createExecProbe(['sh', '-c', `echo $$ > ${pidFile}; exec sleep 300`], spawner).check(ATTEMPT_TIMEOUT_MS, controller.signal);
    await expect.poll(() => readPid(pidFile)).toBeGreaterThan(0);
    controller.abort();
    await expect(attempt).resolves.toEqual({ ok: false, reason: 'aborted' });
    const pid = readPid(pidFile);
    reportedPids.push(pid);
    expect(isAlive(pid)).toBe(false);
  });

  it('ends what a passing command left running in its group', async () => {
    const pidFile = join(workDir, 'pid');
    const outcome = await createExecProbe(['sh', '-c', `sleep 300 & echo $! > ${pidFile}`], spawner).check(ATTEMPT_TIMEOUT_MS, noAbort());
    expect(outcome).toEqual({ ok: true });
    const pid = readPid(pidFile);
    reportedPids.push(pid);
    await expect.poll(() => isAlive(pid)).toBe(false);
  });

  it('rejects an empty command', () => {
    expect(() => createExecProbe([], spawner)).toThrow(/empty/);
  });
});

function readPid(path: string): number {
  try {
    return Number(readFileSync(path, 'utf8').trim()) || 0;
  } catch {
    return 0;
  }
}

function isAlive(pid: number): boolean {
  try {
    // A zombie has exited; only its parent's wait is missing. State follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

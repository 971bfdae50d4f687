import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPid } from '../../test/support/pid-file.ts';
import { useProcessSandbox } from '../../test/support/process-sandbox.ts';
import { isAlive } from '../os/proc-table.ts';
import { createExecProbe } from './exec-probe.ts';

const ATTEMPT_TIMEOUT_MS = 5_000;
/**
 * Runs from the spawn, not from the moment the shell wrote its pid file: long
 * enough for a shell to start and write it on a loaded machine.
 */
const SHORT_TIMEOUT_MS = 1_000;
/** Generous bound on how late a killed attempt may come back. */
const KILL_SLACK_MS = 3_000;

const sandbox = useProcessSandbox('exec-probe-test-', { expectNoOwnedPids: true });

const noAbort = () => new AbortController().signal;
/** Probe options for a process with the given env and cwd. */
const inside = (env: Record<string, string> = {}, cwd?: string) => ({ env, cwd });

describe('createExecProbe', () => {
  it('succeeds when the command exits 0', async () => {
    await expect(createExecProbe(['true'], inside()).check(ATTEMPT_TIMEOUT_MS, noAbort())).resolves.toEqual({ ok: true });
  });

  it("runs with the probed process's env and cwd", async () => {
    const probe = createExecProbe(
      ['sh', '-c', 'test "$PROBE_TOKEN" = yes && test "$(pwd)" = "$1"', 'sh', sandbox.workDir],
      inside({ PROBE_TOKEN: 'yes' }, sandbox.workDir),
    );
    await expect(probe.check(ATTEMPT_TIMEOUT_MS, noAbort())).resolves.toEqual({ ok: true });
    const elsewhere = createExecProbe(['sh', '-c', 'test "$PROBE_TOKEN" = yes'], inside());
    await expect(elsewhere.check(ATTEMPT_TIMEOUT_MS, noAbort())).resolves.toMatchObject({ ok: false });
  });

  it('fails with the exit code otherwise', async () => {
    await expect(createExecProbe(['sh', '-c', 'exit 3'], inside()).check(ATTEMPT_TIMEOUT_MS, noAbort())).resolves.toEqual({
      ok: false,
      reason: 'exec:sh: exited with code 3',
    });
  });

  it('fails with the spawn reason when the program does not exist', async () => {
    const outcome = await createExecProbe(['no-such-probe-program'], inside()).check(ATTEMPT_TIMEOUT_MS, noAbort());
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.reason).toContain('no-such-probe-program: command not found');
  });

  it('kills a hanging command and its children at the timeout, and returns after they are gone', async () => {
    const pids = join(sandbox.workDir, 'pids');
    const probe = createExecProbe(['sh', '-c', `sleep 300 & echo "$$ $!" > ${pids}; wait`], inside());
    const startedAt = performance.now();
    const outcome = await probe.check(SHORT_TIMEOUT_MS, noAbort());
    const elapsedMs = performance.now() - startedAt;

    expect(outcome).toEqual({ ok: false, reason: `timed out after ${SHORT_TIMEOUT_MS}ms` });
    expect(elapsedMs).toBeLessThan(SHORT_TIMEOUT_MS + KILL_SLACK_MS);
    const [shell, sleeper] = (await readFile(pids, 'utf8')).trim().split(' ').map(Number);
    sandbox.track(shell!, sleeper!);
    // The shell was awaited before the outcome; the orphaned sleep is reaped by
    // whoever adopted it, so it is given a moment.
    expect(isAlive(shell!)).toBe(false);
    await expect.poll(() => isAlive(sleeper!)).toBe(false);
  });

  it('kills the command when aborted', async () => {
    const pidFile = join(sandbox.workDir, 'pid');
    const controller = new AbortController();
    const attempt = createExecProbe(['sh', '-c', `echo $$ > ${pidFile}; exec sleep 300`], inside()).check(
      ATTEMPT_TIMEOUT_MS,
      controller.signal,
    );
    await expect.poll(() => readPid(pidFile)).toBeGreaterThan(0);
    controller.abort();
    await expect(attempt).resolves.toEqual({ ok: false, reason: 'aborted' });
    const pid = readPid(pidFile);
    sandbox.track(pid);
    expect(isAlive(pid)).toBe(false);
  });

  it('ends what a passing command left running in its group', async () => {
    const pidFile = join(sandbox.workDir, 'pid');
    const outcome = await createExecProbe(['sh', '-c', `sleep 300 & echo $! > ${pidFile}`], inside()).check(ATTEMPT_TIMEOUT_MS, noAbort());
    expect(outcome).toEqual({ ok: true });
    const pid = readPid(pidFile);
    sandbox.track(pid);
    await expect.poll(() => isAlive(pid)).toBe(false);
  });

  it('rejects an empty command', () => {
    expect(() => createExecProbe([], inside())).toThrow(/empty/);
  });
});

import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPid } from '../../test/support/pid-file.ts';
import { useProcessSandbox } from '../../test/support/process-sandbox.ts';
import type { OutputStream } from '../process/child.ts';
import { libuvChildren } from '../process/spawn.ts';
import { isAlive } from '../os/proc-table.ts';
import type { HookContext } from './hook.ts';
import { runHook } from './run-hook.ts';
import type { ExecHookSpec } from './run-exec-hook.ts';
import { OUTPUT_CLOSE_GRACE_MS } from './run-exec-hook.ts';

const HOOK_TIMEOUT_MS = 10_000;
/**
 * Runs from the spawn, not from the moment the shell wrote its pid file: long
 * enough for a shell to start and write it on a loaded machine.
 */
const SHORT_TIMEOUT_MS = 1_000;
/** Generous bound on how late a killed hook may come back. */
const KILL_SLACK_MS = 3_000;

const sandbox = useProcessSandbox('exec-hook-test-', { expectNoOwnedPids: true });

interface Line {
  readonly line: string;
  readonly stream: OutputStream;
}

function contextFor(env: Record<string, string> = {}, cwd?: string): HookContext & { readonly lines: Line[] } {
  const lines: Line[] = [];
  return { env, cwd, lines, onOutputLine: (line, stream) => lines.push({ line, stream }) };
}

function exec(script: string, timeoutMs = HOOK_TIMEOUT_MS): ExecHookSpec {
  return { kind: 'exec', command: ['sh', '-c', script], timeoutMs };
}

const noAbort = () => new AbortController().signal;

/** Reads the "$$ $!" a hook wrote, and tracks both so the sandbox kills survivors. */
function hookPids(file: string): { readonly hook: number; readonly background: number } {
  const [hook = 0, background = 0] = [readPid(`${file}.hook`), readPid(`${file}.bg`)];
  sandbox.track(...[hook, background].filter((pid) => pid > 0));
  return { hook, background };
}

/** A hook script prefix that records its own pid and that of a background sleep holding its output pipes. */
function withBackground(file: string): string {
  return `echo $$ > ${file}.hook; sleep 300 & echo $! > ${file}.bg;`;
}

describe('runHook (exec)', () => {
  it('succeeds on exit 0 without waiting for a background child that holds its output, and kills that child', async () => {
    const file = join(sandbox.workDir, 'pids');
    const outcome = await runHook(exec(`${withBackground(file)} exit 0`), contextFor(), noAbort());
    const { hook, background } = hookPids(file);

    expect(outcome).toEqual({ ok: true, elapsedMs: expect.any(Number) });
    expect(outcome.elapsedMs).toBeLessThan(KILL_SLACK_MS * 2);
    expect(isAlive(hook)).toBe(false);
    // Orphaned, so reaped by whoever adopted it: given a moment.
    await expect.poll(() => isAlive(background)).toBe(false);
  });

  it('fails with the exit code, and kills a background child', async () => {
    const file = join(sandbox.workDir, 'pids');
    const outcome = await runHook(exec(`${withBackground(file)} exit 3`), contextFor(), noAbort());
    const { hook, background } = hookPids(file);

    expect(outcome).toEqual({ ok: false, reason: 'exited with code 3', elapsedMs: expect.any(Number) });
    expect(isAlive(hook)).toBe(false);
    await expect.poll(() => isAlive(background)).toBe(false);
  });

  it('fails naming the signal that killed it', async () => {
    await expect(runHook(exec('kill -TERM $$'), contextFor(), noAbort())).resolves.toMatchObject({
      ok: false,
      reason: 'killed by SIGTERM',
    });
  });

  it('fails with the spawn reason when the program does not exist', async () => {
    const hook: ExecHookSpec = { kind: 'exec', command: ['no-such-hook-program'], timeoutMs: HOOK_TIMEOUT_MS };
    const outcome = await runHook(hook, contextFor(), noAbort());
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.reason).toContain('no-such-hook-program: command not found');
  });

  it('kills the hook and its children at the timeout, and returns after the hook is gone', async () => {
    const file = join(sandbox.workDir, 'pids');
    const outcome = await runHook(exec(`${withBackground(file)} wait`, SHORT_TIMEOUT_MS), contextFor(), noAbort());
    const { hook, background } = hookPids(file);

    expect(outcome).toEqual({ ok: false, reason: `timed out after ${SHORT_TIMEOUT_MS}ms`, elapsedMs: expect.any(Number) });
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 5);
    expect(outcome.elapsedMs).toBeLessThan(SHORT_TIMEOUT_MS + KILL_SLACK_MS);
    expect(hook).toBeGreaterThan(0);
    expect(isAlive(hook)).toBe(false);
    await expect.poll(() => isAlive(background)).toBe(false);
  });

  it('kills the hook promptly when aborted', async () => {
    const pidFile = join(sandbox.workDir, 'pid');
    const controller = new AbortController();
    const running = runHook(exec(`echo $$ > ${pidFile}; exec sleep 300`), contextFor(), controller.signal);
    await expect.poll(() => readPid(pidFile)).toBeGreaterThan(0);
    const pid = readPid(pidFile);
    sandbox.track(pid);

    const abortedAt = performance.now();
    controller.abort();
    const outcome = await running;
    expect(performance.now() - abortedAt).toBeLessThan(KILL_SLACK_MS);
    expect(outcome).toMatchObject({ ok: false, reason: 'aborted' });
    expect(isAlive(pid)).toBe(false);
  });

  it('starts nothing when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const marker = join(sandbox.workDir, 'started');
    await expect(runHook(exec(`touch ${marker}`), contextFor(), controller.signal)).resolves.toMatchObject({
      ok: false,
      reason: 'aborted',
    });
    expect(existsSync(marker)).toBe(false);
    expect([...libuvChildren]).toEqual([]);
  });

  it("runs with the process's env and cwd", async () => {
    const context = contextFor({ HOOK_TOKEN: 'yes' }, sandbox.workDir);
    await expect(runHook(exec('echo "$HOOK_TOKEN"; pwd -P'), context, noAbort())).resolves.toMatchObject({ ok: true });
    expect(context.lines).toEqual([
      { line: 'yes', stream: 'stdout' },
      { line: await realpath(sandbox.workDir), stream: 'stdout' },
    ]);
  });

  it('delivers every line in order, per stream, decoded as UTF-8, the last one without a newline too, before resolving', async () => {
    const context = contextFor();
    const script = `printf 'one\\n'; printf 'warn\\n' >&2; printf 'h\\303\\251llo \\342\\234\\223\\n\\n'; printf 'last'; printf 'err-last' >&2`;
    await expect(runHook(exec(script), context, noAbort())).resolves.toMatchObject({ ok: true });
    const on = (stream: OutputStream) => context.lines.filter((line) => line.stream === stream).map(({ line }) => line);
    expect(on('stdout')).toEqual(['one', 'héllo ✓', '', 'last']);
    expect(on('stderr')).toEqual(['warn', 'err-last']);
  });

  it('delivers what a timed-out hook wrote before it was killed', async () => {
    const pidFile = join(sandbox.workDir, 'pid');
    const context = contextFor();
    const outcome = await runHook(
      exec(`echo $$ > ${pidFile}; printf 'started\\npartial'; exec sleep 300`, SHORT_TIMEOUT_MS),
      context,
      noAbort(),
    );
    const pid = readPid(pidFile);
    sandbox.track(pid);
    expect(outcome).toMatchObject({ ok: false, reason: `timed out after ${SHORT_TIMEOUT_MS}ms` });
    expect(context.lines.map(({ line }) => line)).toEqual(['started', 'partial']);
    expect(isAlive(pid)).toBe(false);
  });

  describe('when a process that left its group (setsid) holds the output open', () => {
    /**
     * A hook script prefix that starts a sleep in a session of its own and
     * goes on only once it is there (it writes its pid after setsid): a hook
     * that exited first would have its group killed with the sleep still in it.
     */
    function leaveGroup(file: string): string {
      return `setsid sh -c 'echo $$ > ${file}.bg; exec sleep 300' & until [ -s ${file}.bg ]; do sleep 0.01; done;`;
    }

    /** The outsider is beyond the hook's reach (the supervisor's final sweep ends such processes), so the test ends it. */
    async function endOutsider(pid: number): Promise<void> {
      // The hook's own pid was released at its exit, pipes or not.
      expect(libuvChildren.size).toBe(0);
      process.kill(pid, 'SIGKILL');
      await expect.poll(() => isAlive(pid)).toBe(false);
    }

    it('reports the hook by its own exit soon after it exits, instead of waiting for its output to close', async () => {
      const file = join(sandbox.workDir, 'pids');
      const outcome = await runHook(exec(`echo $$ > ${file}.hook; ${leaveGroup(file)} exit 0`), contextFor(), noAbort());
      const { hook, background } = hookPids(file);

      expect(outcome).toMatchObject({ ok: true });
      expect(outcome.elapsedMs).toBeLessThan(OUTPUT_CLOSE_GRACE_MS + KILL_SLACK_MS);
      expect(isAlive(hook)).toBe(false);
      await endOutsider(background);
    });

    it('still returns promptly when aborted', async () => {
      const file = join(sandbox.workDir, 'pids');
      const controller = new AbortController();
      const running = runHook(exec(`${leaveGroup(file)} echo $$ > ${file}.hook; exec sleep 300`), contextFor(), controller.signal);
      await expect.poll(() => readPid(`${file}.hook`)).toBeGreaterThan(0);
      const { hook, background } = hookPids(file);

      const abortedAt = performance.now();
      controller.abort();
      await expect(running).resolves.toMatchObject({ ok: false, reason: 'aborted' });
      expect(performance.now() - abortedAt).toBeLessThan(KILL_SLACK_MS);
      expect(isAlive(hook)).toBe(false);
      await endOutsider(background);
    });
  });
});

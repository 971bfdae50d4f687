import { afterEach, describe, expect, it, vi } from 'vitest';
import { useProcessSandbox } from '../../test/support/process-sandbox.ts';
import type { HookContext } from './hook.ts';
import { runDrain } from './run-drain.ts';

const DELAY_MS = 100;
const LONG_DELAY_MS = 60_000;
/** Generous bound on how late a timer or an abort may be noticed. */
const SLACK_MS = 2_000;

useProcessSandbox('drain-test-', { expectNoOwnedPids: true });

function contextWithLines(): HookContext & { readonly lines: string[] } {
  const lines: string[] = [];
  return { env: { DRAIN_TOKEN: 'drained' }, cwd: undefined, lines, onOutputLine: (line) => lines.push(line) };
}

const noAbort = () => new AbortController().signal;

afterEach(() => {
  vi.useRealTimers();
});

describe('runDrain', () => {
  it('waits out a delay, then succeeds', async () => {
    const outcome = await runDrain({ kind: 'delay', ms: DELAY_MS }, contextWithLines(), noAbort());
    expect(outcome).toEqual({ ok: true, elapsedMs: expect.any(Number) });
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(DELAY_MS - 5);
    expect(outcome.elapsedMs).toBeLessThan(DELAY_MS + SLACK_MS);
  });

  it('ends a delay at once when aborted, and clears its timer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const controller = new AbortController();
    const draining = runDrain({ kind: 'delay', ms: LONG_DELAY_MS }, contextWithLines(), controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    await expect(draining).resolves.toMatchObject({ ok: false, reason: 'aborted' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not wait at all when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await runDrain({ kind: 'delay', ms: LONG_DELAY_MS }, contextWithLines(), controller.signal);
    expect(outcome).toMatchObject({ ok: false, reason: 'aborted' });
    expect(outcome.elapsedMs).toBeLessThan(SLACK_MS);
  });

  it('runs a hook, with the context it is given', async () => {
    const context = contextWithLines();
    const hook = { kind: 'exec', command: ['sh', '-c', 'echo "$DRAIN_TOKEN"'], timeoutMs: 5_000 } as const;
    await expect(runDrain({ kind: 'hook', hook }, context, noAbort())).resolves.toMatchObject({ ok: true });
    expect(context.lines).toEqual(['drained']);
  });
});

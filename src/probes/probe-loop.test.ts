import { describe, expect, it } from 'vitest';
import type { Probe } from './probe.ts';
import { runProbeLoop } from './probe-loop.ts';

// The loop's one promise about the event loop: however long an attempt takes,
// and however short the period, the next attempt never starts before the event
// loop has turned, so PID 1 still handles signals, timers and I/O.

/** Attempts the loop makes before the test stops it. */
const ATTEMPTS = 50;
/** Each attempt holds the thread this long, twice the period: it always overruns. */
const ATTEMPT_COST_MS = 2;

describe('runProbeLoop', () => {
  it('lets the event loop turn between attempts that outlast their period and answer at once', async () => {
    let attempts = 0;
    // Answers with a promise that is already settled, as a /proc search would
    // if it read synchronously: nothing in the attempt itself yields.
    const probe: Probe = {
      description: 'an overrunning attempt',
      check: async () => {
        attempts += 1;
        const until = performance.now() + ATTEMPT_COST_MS;
        while (performance.now() < until) {
          // holds the thread, as a slow synchronous read would
        }
        return { ok: false, reason: 'not yet' };
      },
    };
    let attemptsWhenTheLoopTurned: number | undefined;
    setImmediate(() => {
      attemptsWhenTheLoopTurned = attempts;
    });
    await new Promise<void>((resolve) => {
      runProbeLoop(
        probe,
        { timeoutMs: 1_000, firstAttemptAfterMs: 0, wakes: false },
        () => {
          if (attempts < ATTEMPTS) return { kind: 'after', periodMs: 1 };
          resolve();
          return { kind: 'stop' };
        },
        new AbortController().signal,
      );
    });
    // Chained from one answer to the next, all 50 attempts ran before the immediate could.
    expect(attemptsWhenTheLoopTurned).toBeDefined();
    expect(attemptsWhenTheLoopTurned).toBeLessThan(ATTEMPTS);
    expect(attemptsWhenTheLoopTurned).toBeLessThanOrEqual(2);
  });
});

import { watchReadiness } from '../src/probes/watch-readiness.ts';
import type { Probe, ProbeOutcome } from '../src/probes/probe.ts';
import { median } from './measure.ts';

// Inside sidecar-init: from an event-driven probe's wake (a log line matched, a
// file appeared) to the readiness watch starting its next attempt, instead of
// waiting out the period.
const RUNS = 50;
const LONG_PERIOD_MS = 60_000;
const TIMING = { periodMs: LONG_PERIOD_MS, timeoutMs: 1_000, periodAfterStartMs: LONG_PERIOD_MS };

function oneRun(): Promise<number> {
  return new Promise((resolve) => {
    let wake = (): void => undefined;
    let attempts = 0;
    let wokenAt = 0;
    const controller = new AbortController();
    const probe: Probe = {
      description: 'bench',
      check: async (): Promise<ProbeOutcome> => {
        attempts += 1;
        if (attempts === 1) {
          // Wake once the first attempt is over, as a matched line would.
          setImmediate(() => {
            wokenAt = performance.now();
            wake();
          });
          return { ok: false, reason: 'not yet' };
        }
        const startedAt = performance.now();
        controller.abort();
        resolve(startedAt - wokenAt);
        return { ok: true };
      },
      subscribe: (handler) => {
        wake = handler;
      },
    };
    watchReadiness(probe, TIMING, () => undefined, controller.signal);
  });
}

export async function run(): Promise<void> {
  const latencies: number[] = [];
  for (let index = 0; index < RUNS; index += 1) latencies.push(await oneRun());
  console.log(`\nprobe wake -> next readiness attempt, in process (median of ${RUNS})`);
  console.log(`  sidecar-init   ${median(latencies).toFixed(3).padStart(10)} ms   (max ${Math.max(...latencies).toFixed(3)} ms)`);
}

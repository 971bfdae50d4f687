import { afterEach, expect } from 'vitest';
import { createEventLog } from './events.ts';
import type { EventLog } from './events.ts';
import { killMarkedProcesses, waitForNoLeftovers } from './leftovers.ts';
import type { RunningSupervisor } from './supervisor.ts';

export interface Harness {
  /**
   * Registers a run: afterEach asserts that nothing it started outlived it, then
   * kills the run and every process of it, by PID.
   */
  track<T extends RunningSupervisor>(run: T): T;
  /** A fresh event file, removed after the test. */
  events(): EventLog;
  /** Asserts that no process started by the run is still alive. */
  expectNothingLeft(run: RunningSupervisor): Promise<void>;
}

/** Call once per test file: sets up the afterEach cleanup. */
export function useHarness(): Harness {
  const runs: RunningSupervisor[] = [];
  const logs: EventLog[] = [];
  afterEach(async () => {
    const leftovers: number[] = [];
    for (const run of runs.splice(0)) {
      // A supervisor that exited must have left nothing behind, whatever the test
      // asserted; one still running (the test failed early) is simply killed.
      if (run.process.exitCode !== null || run.process.signalCode !== null) leftovers.push(...(await waitForNoLeftovers(run.marker)));
      run.process.kill('SIGKILL');
      killMarkedProcesses(run.marker);
    }
    for (const log of logs.splice(0)) log.remove();
    expect(leftovers).toEqual([]);
  });
  return {
    track(run) {
      runs.push(run);
      return run;
    },
    events() {
      const log = createEventLog();
      logs.push(log);
      return log;
    },
    async expectNothingLeft(run) {
      expect(await waitForNoLeftovers(run.marker)).toEqual([]);
    },
  };
}

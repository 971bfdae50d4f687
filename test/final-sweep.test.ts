import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixtureArgv, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { findMarkedProcesses } from './support/leftovers.ts';
import { processState } from './support/proc-state.ts';
import { runSupervisor, startSupervisor } from './support/supervisor.ts';

// The final sweep: after every planned process is down, what they left behind
// (here a process in its own session, ignoring SIGTERM) gets what is left of
// the grace budget, unless a second stop signal says "now".

const { track, events: createEvents, expectNothingLeft } = useHarness();

const GRACE_S = 25;
/** Generous: SIGKILL goes out within one poll of the sweep, plus the kernel's teardown of the process. */
const HURRIED_EXIT_MS = 8_000;

describe('the final sweep', () => {
  it('skips what is left of the budget when a second SIGTERM arrives while a leftover ignores the first', async () => {
    const events = createEvents();
    const ready = `${events.dir}/leftover-ready`;
    // The leftover ignores TERM, leaves the sidecar's process group (setsid) and announces itself once its trap is set.
    // A redirection, not touch: a touch still running when the probe passes would ignore TERM too and be swept as a second leftover.
    const leftover = `trap '' TERM; : > ${ready}; exec sleep 300`;
    const config = writeConfig(events.dir, [
      `grace: ${GRACE_S}s`,
      'processes:',
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${yamlArgv('/bin/sh', '-c', `setsid /bin/sh -c ${JSON.stringify(leftover)} & exec sleep 300`)}`,
      '    readiness:',
      `      probe: file:${ready}`,
      '  - name: app',
      '    role: app',
      '    command: ["true"]',
    ]);
    const run = track(startSupervisor(['-c', config]));
    // The app has exited and the proxy is down: the sweep now waits on the leftover.
    await run.waitForLog((line) => line.event === 'finished');
    run.process.kill('SIGTERM');
    await run.waitForLog((line) => line.event === 'signal');
    const secondAt = performance.now();
    run.process.kill('SIGTERM');
    const exit = await run.exited;
    expect(performance.now() - secondAt).toBeLessThan(HURRIED_EXIT_MS);
    expect(exit.code).toBe(0);
    expect(run.logs.find((line) => line.event === 'signal' && line.level === 'warn')?.msg).toBe(
      'second stop signal: ending leftover processes now',
    );
    expect(run.logs.find((line) => line.event === 'swept')).toMatchObject({ killed: 1 });
    await expectNothingLeft(run);
  });

  // Daemons in sessions of their own are in no process group sidecar-init signals; the sweep
  // finds them as its descendants (adopted orphans), under real PID 1 as well as a subreaper.
  it.each([
    ['as a subreaper', false],
    ['as PID 1', true],
  ])('ends what the app left in sessions of its own (setsid) %s: SIGTERM, then SIGKILL for what ignores it', async (_mode, pid1) => {
    const events = createEvents();
    const run = track(
      await runSupervisor(['--grace', '2s', '--', ...fixtureArgv('setsid-daemons.sh', 'app')], { env: { EVENTS: events.file }, pid1 }),
    );
    expect(run.code).toBe(0);
    const sequence = events.sequence();
    expect(sequence).toContain('stubborn start');
    // The polite daemon heard the sweep's SIGTERM after the app was gone (not the namespace's SIGKILL at PID 1's exit).
    expect(sequence.indexOf('polite stopped')).toBeGreaterThan(sequence.indexOf('app start'));
    const swept = run.logs.find((line) => line.event === 'swept');
    expect(swept).toMatchObject({ killed: 1 });
    expect(swept?.terminated).toBeGreaterThanOrEqual(1);
    await expectNothingLeft(run);
  });

  // At PID 1's exit the kernel kills whatever is left in its namespace: a leftover found dead after the
  // run proves nothing. Seen from outside the namespace, it must be gone while PID 1 still logs, before `exit`.
  it('as PID 1, the leftover that ignores SIGTERM is dead before PID 1 logs its exit', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor(['--grace', '2s', '--', ...fixtureArgv('setsid-daemons.sh', 'app')], { env: { EVENTS: events.file }, pid1: true }),
    );
    await events.waitFor('stubborn start');
    const stubborn = hostPidOf(run.marker, events.read().find((entry) => entry.name === 'stubborn')?.pid ?? 0);
    // What /proc shows of it when PID 1 writes its last lines (the check runs as each line arrives).
    const stateAt = async (event: string) => {
      await run.waitForLog((line) => line.event === event);
      return processState(stubborn) ?? 'gone';
    };
    const [atSwept, atExit] = await Promise.all([stateAt('swept'), stateAt('exit')]);
    expect({ atSwept, atExit }).toEqual({ atSwept: 'gone', atExit: 'gone' });
    const logged = run.logs.map((line) => line.event);
    expect(logged.indexOf('swept')).toBeLessThan(logged.indexOf('exit'));
    expect(run.logs.find((line) => line.event === 'swept')).toMatchObject({ killed: 1 });
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });
});

/** The PID this test sees for the run's process that is nsPid in its own namespace (the last field of NSpid). */
function hostPidOf(marker: string, nsPid: number): number {
  const found = findMarkedProcesses(marker).find((pid) => {
    try {
      const nsPids = /^NSpid:\s+(.*)$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]?.split(/\s+/) ?? [];
      return nsPids.length > 1 && Number(nsPids.at(-1)) === nsPid;
    } catch {
      return false;
    }
  });
  if (found === undefined) throw new Error(`no process of the run is PID ${nsPid} in its namespace`);
  return found;
}

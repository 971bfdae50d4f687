import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { waitForNoLeftovers } from './support/leftovers.ts';
import { childrenOf } from './support/namespaces.ts';
import { parentOf } from './support/proc-state.ts';
import { runStoppedAtSyscall, type StoppedRun } from './support/stopped-at-syscall.ts';
import { BIN_COMMAND, type LogLine, MARKER_VARIABLE, runSupervisor, startSupervisor } from './support/supervisor.ts';

// --parent-death-signal (tini's -p): sidecar-init started by a parent that may
// die first (docker exec, a wrapper script) gets the signal when that parent
// exits, and handles it as any signal sent to it: SIGTERM tears everything
// down. The parent here is a shell that starts sidecar-init in the background
// and waits; the test kills it. sidecar-init's stderr is the shell's, so the
// run's log and its end (the pipe closed by the last process holding it) are
// still the test's to see.

const { track, events: createEvents, expectNothingLeft } = useHarness();
/** A startSupervisor wrapper: a parent shell that runs sidecar-init in the background and waits for it. */
const PARENT = ['sh', '-c', '"$@" & wait', 'parent'];
const ARM = ['--parent-death-signal', 'SIGTERM', '--log-level', 'debug'];
const stoppedRuns: StoppedRun[] = [];
afterEach(() => {
  for (const run of stoppedRuns.splice(0)) run.kill();
});

describe('--parent-death-signal SIGTERM', () => {
  it('tears everything down when the parent exits: the app gets SIGTERM, sidecar-init exits 0, nothing is left', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor([...ARM, '--', ...fixtureArgv('record-stop-signal.sh', 'app')], { wrapper: PARENT, env: { EVENTS: events.file } }),
    );
    const armed = await run.waitForLog((line) => line.event === 'parent-death-signal');
    expect(armed.msg).toBe(`SIGTERM when the parent (pid ${run.process.pid}) exits`);
    await events.waitFor('app start');
    run.process.kill('SIGKILL');
    // The end of the stderr pipe: sidecar-init and the app were the last to hold it.
    await run.exited;
    expect(events.sequence()).toEqual(['app start', 'app got-TERM']);
    expect(run.logs.find((line) => line.event === 'teardown')).toMatchObject({ reason: 'signal' });
    expect(run.logs.find((line) => line.event === 'exit')).toMatchObject({ exitCode: 0 });
    await expectNothingLeft(run);
  });

  it('tears everything down when the parent exited before the signal could be set: at once, with a warning', async () => {
    const events = createEvents();
    const marker = randomUUID();
    // Stopped right after its second prctl, which names it (Node's own, MainThread, is the first):
    // it has seen its parent, and its parent-death signal is not set yet.
    const run = runStoppedAtSyscall('prctl', 2, [
      'env',
      `${MARKER_VARIABLE}=${marker}`,
      `EVENTS=${events.file}`,
      ...PARENT,
      ...BIN_COMMAND,
      ...ARM,
      '--',
      ...fixtureArgv('record-stop-signal.sh', 'app'),
    ]);
    stoppedRuns.push(run);
    const parent = await run.stopped;
    const [supervisor] = childrenOf(parent);
    process.kill(parent, 'SIGKILL');
    // The kernel gives sidecar-init another parent as its parent exits.
    await expect.poll(() => parentOf(supervisor!)).not.toBe(parent);
    process.kill(supervisor!, 'SIGCONT');
    const { stderr } = await run.exited;
    const logs = stderr.split('\n').flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as LogLine] : []));
    expect(logs.find((line) => line.event === 'parent-gone')).toMatchObject({
      level: 'warn',
      signal: 'SIGTERM',
      parent,
      msg: `the parent (pid ${parent}) exited before sidecar-init could watch it; handling SIGTERM as if it had come`,
    });
    expect(logs.find((line) => line.event === 'teardown')).toMatchObject({ reason: 'signal' });
    expect(logs.find((line) => line.event === 'exit')).toBeDefined();
    expect(await waitForNoLeftovers(marker)).toEqual([]);
  });

  it('started into a PID namespace from outside it, as docker exec does (getppid() is 0): tears down when that parent exits', async () => {
    // The container: a PID namespace whose PID 1 only waits. nsenter forks sidecar-init into it and stays outside, its parent.
    const container = spawn('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', 'sleep', '600'], { stdio: 'ignore' });
    try {
      await expect.poll(() => childrenOf(container.pid!).length).toBe(1);
      const [containerInit] = childrenOf(container.pid!);
      const events = createEvents();
      const exec = ['nsenter', `--target=${containerInit}`, '--pid', '--mount'];
      const run = track(
        startSupervisor([...ARM, '--', ...fixtureArgv('record-stop-signal.sh', 'app')], { wrapper: exec, env: { EVENTS: events.file } }),
      );
      const armed = await run.waitForLog((line) => line.event === 'parent-death-signal');
      expect(armed).toMatchObject({ parent: 0, msg: 'SIGTERM when the parent (outside this PID namespace) exits' });
      await events.waitFor('app start');
      run.process.kill('SIGKILL');
      await run.exited;
      expect(events.sequence()).toEqual(['app start', 'app got-TERM']);
      expect(run.logs.find((line) => line.event === 'exit')).toMatchObject({ exitCode: 0 });
      await expectNothingLeft(run);
    } finally {
      container.kill('SIGKILL');
    }
  });

  it('as PID 1 does nothing and says so at debug: PID 1 has no parent in its PID namespace', async () => {
    const run = track(await runSupervisor([...ARM, '--', 'true'], { pid1: true }));
    expect(run.code, run.stderr()).toBe(0);
    expect(run.logs.find((line) => line.event === 'parent-death-signal')).toMatchObject({
      level: 'debug',
      msg: 'PID 1 has no parent in its PID namespace: no SIGTERM when a parent exits',
    });
    await expectNothingLeft(run);
  });
});

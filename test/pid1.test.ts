import { describe, expect, it } from 'vitest';
import { announced, fixture, fixtureArgv, shellJoin, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { parentOf } from './support/proc-state.ts';
import { FIXTURES, runSupervisor, startSupervisor } from './support/supervisor.ts';

// The supervisor as real PID 1 (a new PID namespace; needs root, as in CI), and
// as a child subreaper when it is not PID 1.

const { track, events: createEvents, expectNothingLeft } = useHarness();
const ORPHANS = 150;

describe('as PID 1', () => {
  it('reaps every orphaned zombie in the container', async () => {
    const events = createEvents();
    const app = shellJoin('/bin/sh', '-c', `${fixture('make-orphans.sh', String(ORPHANS))} && ${fixture('count-zombies.sh', 'app')}`);
    const run = track(await runSupervisor(['--', '/bin/sh', '-c', app], { pid1: true, env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    expect(run.logs.find((line) => line.event === 'starting')).toMatchObject({ mode: 'pid1' });
    expect(events.sequence()).toEqual(['app zombies-0']);
    const reaped = run.logs.filter((line) => line.event === 'reaped').reduce((sum, line) => sum + Number(line.count), 0);
    expect(reaped).toBeGreaterThanOrEqual(ORPHANS);
    await expectNothingLeft(run);
  });

  it('runs the whole lifecycle and stops what the app left behind', async () => {
    const events = createEvents();
    const run = track(
      await runSupervisor(
        // Ready once its trap is installed: the app exits at once, and the sidecar must be able to hear SIGTERM by then.
        [
          '--grace',
          '1s',
          '--sidecar',
          `s=${fixture('serve.sh', 's')}`,
          '--ready',
          `s=${announced('s')}`,
          '--',
          ...fixtureArgv('leave-daemon.sh', 'app'),
        ],
        {
          pid1: true,
          env: { EVENTS: events.file },
        },
      ),
    );
    expect(run.code).toBe(0);
    expect(events.sequence()).toEqual(expect.arrayContaining(['s start', 'app start', 's stop']));
    // The daemon and its subshell ignore SIGTERM: the sweep had to SIGKILL them.
    expect(Number(run.logs.find((line) => line.event === 'swept')?.killed)).toBeGreaterThan(0);
    await expectNothingLeft(run);
  });
});

describe('as a subreaper (not PID 1)', () => {
  it('adopts orphans of its children and stops them before it exits', async () => {
    const events = createEvents();
    const run = track(startSupervisor(['--', ...fixtureArgv('adopt-me.sh', 'app')], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    const orphan = events.read().find((entry) => entry.event === 'orphan');
    expect(orphan).toBeDefined();
    expect(parentOf(orphan!.pid)).toBe(run.process.pid);
    // The start line reaches us through a pipe: the app's event file can be read first.
    expect(await run.waitForLog((line) => line.event === 'starting')).toMatchObject({ mode: 'subreaper' });
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(Number(run.logs.find((line) => line.event === 'swept')?.terminated)).toBeGreaterThanOrEqual(1);
    await expectNothingLeft(run);
  });
});

describe('as PID 1 with probes, hooks and restarts', () => {
  it('never steals the exit status of exec probes, hooks or restarted sidecars from the lifecycle', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: proxy',
      '    role: sidecar',
      // Crashes once, then comes up; an exec probe (a new process every 20ms) waits
      // for its "start" line, written once its trap is installed.
      `    command: ${yamlArgv(`${FIXTURES}flaky.sh`, 'proxy', `${events.dir}/runs`, '1', `${FIXTURES}serve.sh`, 'proxy')}`,
      '    backoff: { initial: 20ms }',
      `    readiness: { probe: { exec: ${yamlArgv('grep', '-q', ' proxy start ', events.file)} }, period: 20ms }`,
      `    preStop: { exec: ${yamlArgv('/bin/sh', '-c', `. ${FIXTURES}record.sh; NAME=proxy-prestop; record run`)} }`,
      '  - name: job',
      '    role: app',
      `    command: ${yamlArgv('/bin/sh', '-c', `${fixture('make-orphans.sh', '50')}; exit 7`)}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { pid1: true, env: { EVENTS: events.file } }));
    expect(run.code).toBe(7);
    expect(events.sequence()).toEqual(['proxy crash', 'proxy start', 'proxy-prestop run', 'proxy stop']);
    expect(run.logs.filter((line) => line.event === 'restarting')).toHaveLength(1);
    await expectNothingLeft(run);
  });
});

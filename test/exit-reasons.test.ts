import { describe, expect, it } from 'vitest';
import { writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { runSupervisor } from './support/supervisor.ts';

// Every non-zero exit is explained in the log: a line naming the process at
// fault and the reason, even when teardown had nothing left to stop.

const { track, events: createEvents, expectNothingLeft } = useHarness();

describe('exit reasons', () => {
  it('names the sidecar and its missed deadline when the deadline passes during restart backoff', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${yamlArgv('/bin/sh', '-c', 'exit 1')}`,
      // The first restart is immediate, the second waits 60s: the deadline passes while it waits.
      '    backoff: { initial: 60s }',
      '    readiness:',
      `      probe: file:${events.dir}/never`,
      // Generous: two runs of a shell that exits at once must fit in it on a loaded machine.
      '      deadline: 3s',
      '  - name: app',
      '    role: app',
      '    command: ["true"]',
    ]);
    const run = track(await runSupervisor(['-c', config]));
    expect(run.code).toBe(1);
    expect(run.logs.filter((line) => line.event === 'restarting')).toHaveLength(2);
    expect(run.logs.find((line) => line.event === 'teardown')).toMatchObject({
      level: 'warn',
      reason: 'sidecar-failed',
      proc: 'proxy',
      msg: 'sidecar proxy failed to start: not ready within its 3000ms deadline; the app will not start',
    });
    expect(run.logs.find((line) => line.event === 'finished')).toMatchObject({
      level: 'warn',
      exitCode: 1,
      proc: 'proxy',
      msg: 'all processes stopped; exit code 1: sidecar proxy failed to start: not ready within its 3000ms deadline',
    });
    await expectNothingLeft(run);
  });

  it('names the init step and how it ended when it fails', async () => {
    const events = createEvents();
    const run = track(await runSupervisor(['--init', `migrate=/bin/sh -c 'exit 3'`, '--', 'true'], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(3);
    expect(run.logs.find((line) => line.event === 'finished')).toMatchObject({
      exitCode: 3,
      proc: 'migrate',
      msg: 'all processes stopped; exit code 3: init step migrate exited with code 3',
    });
    await expectNothingLeft(run);
  });
});

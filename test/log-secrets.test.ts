import { describe, expect, it } from 'vitest';
import { fixtureArgv, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { startSupervisor } from './support/supervisor.ts';

// Probe and hook command lines may carry tokens. Lines at info and above name
// the program and the process only; the whole command line is logged at debug.
// What a hook prints is its own output and is logged as it is.

const { track, events: createEvents, expectNothingLeft } = useHarness();

const SECRET = 'hunter2-secret';

describe('command lines in the log', () => {
  it('keeps exec probe and hook arguments out of every line above debug', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'proxy'))}`,
      '    restart: never',
      `    readiness: { probe: { exec: ${yamlArgv('/bin/sh', '-c', 'exit 0', 'probe', `--password=${SECRET}`)} } }`,
      `    liveness: { probe: { exec: ${yamlArgv('/bin/sh', '-c', 'exit 1', 'probe', `--password=${SECRET}`)} }, period: 100ms, failureThreshold: 1 }`,
      `    postStart: { exec: ${yamlArgv('/bin/sh', '-c', 'echo postStart ran', 'hook', `--token=${SECRET}`)} }`,
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
      `    preStop: { exec: ${yamlArgv('/bin/sh', '-c', 'exit 3', 'hook', `--token=${SECRET}`)} }`,
    ]);
    const run = track(startSupervisor(['-c', config, '--log-level', 'debug'], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    const livenessFailed = await run.waitForLog((line) => line.event === 'liveness-failed');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);

    const leaking = run.logs.filter((line) => line.level !== 'debug' && JSON.stringify(line).includes(SECRET));
    expect(leaking).toEqual([]);
    // The program and the process are named.
    expect(livenessFailed).toMatchObject({ level: 'warn', proc: 'proxy' });
    expect(livenessFailed.msg).toMatch(/^exec:\/bin\/sh failed 1 times in a row; last: exec:\/bin\/sh: exited with code 1$/);
    expect(run.logs.filter((line) => line.event === 'hook-started').map((line) => [line.proc, line.hook, line.program])).toEqual([
      ['proxy', 'postStart', '/bin/sh'],
      ['app', 'preStop', '/bin/sh'],
    ]);
    expect(run.logs.find((line) => line.event === 'hook-done' && line.proc === 'app')).toMatchObject({
      level: 'warn',
      msg: 'preStop failed: exited with code 3',
    });
    // A hook's output is its own, logged as printed.
    expect(run.logs.find((line) => line.event === 'hook-output')).toMatchObject({ level: 'info', proc: 'proxy', msg: 'postStart ran' });
    // At debug, the whole command lines are there for whoever debugs.
    const debugCommands = run.logs.filter((line) => line.level === 'debug' && JSON.stringify(line).includes(SECRET));
    expect(debugCommands.map((line) => line.event).sort()).toEqual(['hook-command', 'hook-command', 'probe-started', 'probe-started']);
    await expectNothingLeft(run);
  });
});

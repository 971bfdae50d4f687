import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fixture, fixtureArgv, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { startSupervisor } from './support/supervisor.ts';

const { track, events: createEvents, expectNothingLeft } = useHarness();
const INSPECTOR_PORT = 9229;

describe('signal forwarding', () => {
  // IO shares its number with POLL: the line names it as it was sent.
  it('forwards HUP, QUIT, USR1, USR2, WINCH and IO to the app unchanged, each named in its line', async () => {
    const events = createEvents();
    const run = track(startSupervisor(['--', ...fixtureArgv('record-signals.sh', 'app')], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    for (const signal of ['SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH', 'SIGIO'] as const) {
      run.process.kill(signal);
      await events.waitFor(`app got-${signal.slice(3)}`);
    }
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(run.logs.filter((line) => line.event === 'forwarded').map((line) => line.signal)).toEqual([
      'SIGHUP',
      'SIGQUIT',
      'SIGUSR1',
      'SIGUSR2',
      'SIGWINCH',
      'SIGIO',
    ]);
    await expectNothingLeft(run);
  });

  it('passes a signal on before it writes about it, in one line', async () => {
    const events = createEvents();
    const run = track(startSupervisor(['--', ...fixtureArgv('record-signals.sh', 'app')], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    run.process.kill('SIGHUP');
    await events.waitFor('app got-HUP');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    // 'forwarded' is written once kill() has returned; a 'received signal' line used to come first.
    const lines = run.logs.filter((line) => line.signal === 'SIGHUP').map((line) => line.event);
    expect(lines).toEqual(['forwarded']);
    await expectNothingLeft(run);
  });

  it('never opens the Node inspector when SIGUSR1 arrives', async () => {
    const events = createEvents();
    const run = track(startSupervisor(['--', ...fixtureArgv('record-signals.sh', 'app')], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    run.process.kill('SIGUSR1');
    await events.waitFor('app got-USR1');
    expect(await isListening(INSPECTOR_PORT)).toBe(false);
    expect(run.stderr()).not.toContain('Debugger listening');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  it('a second SIGTERM during teardown kills everything at once', async () => {
    const events = createEvents();
    const run = track(startSupervisor(['--grace', '60s', '--', ...fixtureArgv('ignore-term.sh', 'app')], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    run.process.kill('SIGTERM');
    await events.waitFor('app ignored-term');
    const second = Date.now();
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(137);
    expect(Date.now() - second).toBeLessThan(5_000);
    expect(run.logs.some((line) => line.msg === 'second stop signal: killing everything now')).toBe(true);
    await expectNothingLeft(run);
  });
});

// Who receives a forwarded signal: the app's whole process group with
// signalGroup: true, the app alone with false; never a child that moved into
// a session of its own (it is in no group of the app's).
describe('signalGroup', () => {
  it.each([
    [true, ['app got-USR1', 'member got-USR1']],
    [false, ['app got-USR1']],
  ])('signalGroup: %s forwards SIGUSR1 to %j, not to a child in a session of its own', async (signalGroup, receivers) => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('fork-groups.sh', 'app'))}`,
      `    signalGroup: ${signalGroup}`,
    ]);
    const run = track(startSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    run.process.kill('SIGUSR1');
    await events.waitFor('app got-USR1');
    // One kill() reaches every member of a group at once, so a USR1 sent to the group is already
    // pending in each child; the shell runs pending traps in signal order: USR1 before this USR2.
    for (const child of ['member', 'loner']) process.kill(Number(readFileSync(`${events.file}.${child}`, 'utf8')), 'SIGUSR2');
    await events.waitFor('member got-USR2', 'loner got-USR2');
    // In whichever order the two shells ran their traps.
    expect(
      events
        .sequence()
        .filter((entry) => entry.endsWith(' got-USR1'))
        .sort(),
    ).toEqual(receivers);
    expect(await run.waitForLog((line) => line.event === 'forwarded')).toMatchObject({ signal: 'SIGUSR1' });
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });
});

describe('output robustness', () => {
  it('keeps the app exit code when whoever reads its stdout and stderr goes away', async () => {
    const events = createEvents();
    const run = track(startSupervisor(['--', '/bin/sh', '-c', `${fixture('serve.sh', 'app')} & wait`], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    // The fixture prints its ready line after recording its start: it must be out before the reader goes.
    await expect.poll(() => run.stdout()).toContain('app ready\n');
    run.process.stdout?.destroy();
    run.process.stderr?.destroy();
    run.process.kill('SIGTERM');
    // The shell running `wait` dies of the SIGTERM sent to the whole group: 143, reported without a crash.
    expect((await run.exited).code).toBe(143);
    await expectNothingLeft(run);
  });
});

describe('a stalled log reader', () => {
  it('does not freeze the supervisor while a log-probed sidecar floods its output', async () => {
    const flood = `/bin/sh -c 'echo ready; exec yes flooding-the-container-log'`;
    const run = track(
      startSupervisor(['--sidecar', `chatty=${flood}`, '--ready', 'chatty=log:^ready$', '--', 'sleep', '300'], { stdoutUnread: true }),
    );
    await run.waitForLog((line) => line.event === 'spawned' && line.proc === 'app');
    const signalled = Date.now();
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(143);
    // A generous bound: a supervisor blocked on the full pipe would never get here.
    expect(Date.now() - signalled).toBeLessThan(5_000);
  });
});

function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

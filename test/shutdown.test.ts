import { describe, expect, it } from 'vitest';
import { announced, fixture, fixtureArgv, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { waitForStopped } from './support/proc-state.ts';
import { FIXTURES, startSupervisor } from './support/supervisor.ts';

// Termination: hooks, drain, the one grace budget, stop signals, rewrites,
// group signalling and exit-code rules, through the real CLI.

const { track, events: createEvents, expectNothingLeft } = useHarness();
const recordHook = (name: string) => yamlArgv('/bin/sh', '-c', `. ${FIXTURES}record.sh; NAME=${name}; record run`);

describe('hooks and drain', () => {
  it('runs the drain, then every preStop, and sends each stop signal only after its own preStop', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'drain: 300ms',
      'processes:',
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'proxy'))}`,
      // Started means postStart finished, not that the proxy's trap is installed: this readiness waits for that.
      `    readiness: { probe: ${JSON.stringify(announced('proxy'))} }`,
      `    preStop: { exec: ${yamlArgv('/bin/sh', '-c', `. ${FIXTURES}record.sh; NAME=proxy-prestop; record run; echo draining connections`)} }`,
      `    postStart: { exec: ${recordHook('proxy-poststart')} }`,
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
      `    preStop: { exec: ${recordHook('app-prestop')} }`,
    ]);
    const run = track(startSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    const sequence = events.sequence();
    // postStart ran before the next entry (the app) started.
    expect(sequence.indexOf('proxy-poststart run')).toBeLessThan(sequence.indexOf('app start'));
    expect(sequence.slice(sequence.indexOf('app start') + 1).sort()).toEqual([
      'app stop',
      'app-prestop run',
      'proxy stop',
      'proxy-prestop run',
    ]);
    expect(sequence.indexOf('app-prestop run')).toBeLessThan(sequence.indexOf('app stop'));
    expect(sequence.indexOf('app stop')).toBeLessThan(sequence.indexOf('proxy stop'));
    expect(sequence.indexOf('proxy-prestop run')).toBeLessThan(sequence.indexOf('proxy stop'));
    // The drain came before any hook or stop signal, and hook output is logged under its process.
    const order = run.logs.map((line) => line.event);
    expect(order.indexOf('drain-done')).toBeLessThan(order.indexOf('hook-started', order.indexOf('drain-started')));
    expect(run.logs.find((line) => line.event === 'hook-output')).toMatchObject({
      proc: 'proxy',
      hook: 'preStop',
      msg: 'preStop: draining connections',
    });
    expect(run.logs.find((line) => line.event === 'teardown')).toMatchObject({ graceMs: 25_000 });
    await expectNothingLeft(run);
  });
});

describe('the grace budget', () => {
  it('ends an app and a sidecar that both ignore SIGTERM within budget + 3s, exiting 137', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor(
        ['--grace', '2s', '--sidecar', `s=${fixture('ignore-term.sh', 's')}`, '--', ...fixtureArgv('ignore-term.sh', 'app')],
        {
          env: { EVENTS: events.file },
        },
      ),
    );
    // The sidecar has no readiness probe, so it may still be installing its trap when the app starts.
    await events.waitFor('s start', 'app start');
    const signalled = Date.now();
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(137);
    expect(Date.now() - signalled).toBeLessThan(2_000 + 3_000);
    expect(run.logs.some((line) => line.event === 'grace-expired')).toBe(true);
    await expectNothingLeft(run);
  });

  it('ends an app that stopped itself (kill -STOP $$) at once with its SIGTERM, exiting 143, not at the grace with 137', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor(['--grace', '20s', '--', '/bin/sh', '-c', 'NAME=app; . "$0"; record start; kill -STOP $$', `${FIXTURES}record.sh`], {
        env: { EVENTS: events.file },
      }),
    );
    const spawned = await run.waitForLog((line) => line.event === 'spawned' && line.proc === 'app');
    await events.waitFor('app start');
    await waitForStopped(Number(spawned.pid));
    const signalled = Date.now();
    run.process.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 143, signal: null });
    // A liveness bound, far under the grace: the SIGCONT after the SIGTERM lets the pending SIGTERM end it.
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(run.logs.some((line) => line.event === 'grace-expired')).toBe(false);
    await expectNothingLeft(run);
  });
});

describe('signals', () => {
  it('stops a sidecar with its stopSignal and lets --rewrite change what the app hears', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor(
        [
          '--rewrite',
          'SIGTERM:SIGQUIT',
          '--sidecar',
          `nginx=${fixture('record-stop-signal.sh', 'nginx')}`,
          // The app starts only once nginx's traps are installed, which the expected order below relies on.
          '--ready',
          `nginx=${announced('nginx')}`,
          '--stop-signal',
          'nginx=SIGINT',
          '--',
          ...fixtureArgv('record-stop-signal.sh', 'app'),
        ],
        { env: { EVENTS: events.file } },
      ),
    );
    await events.waitFor('app start');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(events.sequence()).toEqual(['nginx start', 'app start', 'app got-QUIT', 'nginx got-INT']);
    await expectNothingLeft(run);
  });

  it('drops a forwarded signal rewritten to none', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor(['--rewrite', 'SIGHUP:none', '--', ...fixtureArgv('record-signals.sh', 'app')], { env: { EVENTS: events.file } }),
    );
    await events.waitFor('app start');
    run.process.kill('SIGHUP');
    run.process.kill('SIGUSR2');
    await events.waitFor('app got-USR2');
    expect(events.sequence()).not.toContain('app got-HUP');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  // dumb-init's -r 15:3 -r 1:0: SIGTERM reaches the app as SIGQUIT, SIGHUP not at all. Had the HUP
  // been passed on, the app would have exited on it (got-HUP) before the teardown's QUIT.
  it.each([
    ['--rewrite 15:3 --rewrite 1:0', (_dir: string) => ['--rewrite', '15:3', '--rewrite', '1:0']],
    ['rewrite: {15: 3, 1: 0} in the file', (dir: string) => ['-c', writeConfig(dir, ['rewrite: { 15: 3, 1: 0 }'])]],
  ])("takes dumb-init's numbers: %s", async (_form, rewrites) => {
    const events = createEvents();
    const args = [...rewrites(events.dir), '--', ...fixtureArgv('record-stop-signal.sh', 'app')];
    const run = track(startSupervisor(args, { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    run.process.kill('SIGHUP');
    run.process.kill('SIGTERM');
    expect((await run.exited).code, run.stderr()).toBe(0);
    expect(events.sequence()).toEqual(['app start', 'app got-QUIT']);
    await expectNothingLeft(run);
  });

  const shellWithChild = (name: string) => ['/bin/sh', '-c', `${fixture('serve.sh', name)} & wait`];

  it('signals the whole process group by default, so a shell and its children all hear it', async () => {
    const events = createEvents();
    // The shell waits for its child on SIGTERM: it exits 0 only once the child heard the signal too.
    const shell = ['/bin/sh', '-c', `trap 'wait; exit 0' TERM; ${fixture('serve.sh', 'child')} & wait`];
    const run = track(startSupervisor(['--', ...shell], { env: { EVENTS: events.file } }));
    await events.waitFor('child start');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(events.sequence()).toEqual(['child start', 'child stop']);
    expect(run.logs.some((line) => line.event === 'swept')).toBe(false);
    await expectNothingLeft(run);
  });

  it('with --single-child signals only the direct child; the final sweep stops what is left', async () => {
    const events = createEvents();
    const run = track(startSupervisor(['--single-child', '--', ...shellWithChild('child')], { env: { EVENTS: events.file } }));
    await events.waitFor('child start');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(143);
    // The child (and its own sleep) never heard the app's SIGTERM: the sweep had to stop them.
    expect(Number(run.logs.find((line) => line.event === 'swept')?.terminated)).toBeGreaterThan(0);
    expect(events.sequence()).toEqual(['child start', 'child stop']);
    await expectNothingLeft(run);
  });
});

describe('exit codes', () => {
  it('turns a listed success code into 0', async () => {
    const run = track(startSupervisor(['--success-code', '143', '--', 'sleep', '300']));
    await run.waitForLog((line) => line.event === 'spawned' && line.proc === 'app');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });
});

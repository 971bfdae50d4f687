import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { announced, fixture, fixtureArgv, freePort, tcpServer, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { runSupervisor, startSupervisor } from './support/supervisor.ts';

// Ordered start, readiness gating, reverse teardown and exit codes, through the
// real CLI with real processes. Every test ends by checking that no process of
// its run is left alive, and afterEach kills any that were, by PID.

const { track, events: createEvents, expectNothingLeft } = useHarness();
/** A process's own grace, far under the global one. */
const OWN_GRACE_MS = 200;
const OWN_GRACE_KILL_BOUND_MS = 380;

describe('startup order and teardown', () => {
  it('starts entries in list order gated on readiness, stops sidecars in reverse, exits with the app code', async () => {
    const events = createEvents();
    const [portA, portB] = [await freePort(), await freePort()];
    const run = track(
      await runSupervisor(
        [
          ['--sidecar', `a=${tcpServer('a', portA, 200)}`],
          ['--ready', `a=tcp://127.0.0.1:${portA}`],
          ['--init', `step=${fixture('exit-with.sh', 'step', '0')}`],
          ['--sidecar', `b=${tcpServer('b', portB, 100)}`],
          ['--ready', `b=tcp://127.0.0.1:${portB}`],
          ['--', '/bin/sh', '-c', `. ${fixture('record.sh')}; NAME=app; record start; exit 3`],
        ].flat(),
        { env: { EVENTS: events.file } },
      ),
    );
    expect(run.code).toBe(3);
    expect(events.sequence()).toEqual([
      'a start',
      'a listening',
      'step start',
      'step exit-0',
      'b start',
      'b listening',
      'app start',
      'b stop',
      'a stop',
    ]);
    // Sidecars restart on any exit, but never once teardown has begun.
    expect(run.logs.some((line) => line.event === 'restarting')).toBe(false);
    await expectNothingLeft(run);
  });

  it('logs each event with stable fields, and its last line is never lost', async () => {
    const events = createEvents();
    const run = track(
      // Ready once its trap is installed: the app's exit must not stop it before it can hear SIGTERM.
      await runSupervisor(
        ['--sidecar', `s=${fixture('serve.sh', 's')}`, '--ready', `s=${announced('s')}`, '--', '/bin/sh', '-c', 'exit 0'],
        {
          env: { EVENTS: events.file },
        },
      ),
    );
    expect(run.code).toBe(0);
    const spawned = run.logs.filter((line) => line.event === 'spawned');
    expect(spawned.map((line) => [line.proc, line.role, typeof line.pid])).toEqual([
      ['s', 'sidecar', 'number'],
      ['app', 'app', 'number'],
    ]);
    expect(run.logs.find((line) => line.event === 'exited' && line.proc === 's')).toMatchObject({ exitCode: 0 });
    expect(run.logs.at(-1)).toMatchObject({ event: 'exit', exitCode: 0 });
    await expectNothingLeft(run);
  });

  it('reports 128+N when a signal killed the app', async () => {
    const run = track(await runSupervisor(['--', '/bin/sh', '-c', 'kill -KILL $$']));
    expect(run.code).toBe(137);
    await expectNothingLeft(run);
  });

  it('does not let a sidecar that ignores SIGTERM hold the exit past the grace budget', async () => {
    const events = createEvents();
    const started = Date.now();
    const run = track(
      await runSupervisor(
        [
          ['--grace', '1s', '--sidecar', `stubborn=${fixture('ignore-term.sh', 'stubborn')}`],
          // Ready once its trap is installed, or the SIGTERM could end it before it had the chance to ignore it.
          ['--ready', `stubborn=${announced('stubborn')}`],
          ['--', '/bin/sh', '-c', 'exit 0'],
        ].flat(),
        {
          env: { EVENTS: events.file },
        },
      ),
    );
    // Grace 1s, then SIGTERM, then SIGKILL 2s later: a generous upper bound, not a benchmark.
    expect(Date.now() - started).toBeLessThan(1_000 + 2_000 + 3_000);
    expect(run.code).toBe(0);
    expect(events.sequence()).toContain('stubborn ignored-term');
    expect(run.logs.some((line) => line.event === 'stopping' && line.signal === 'SIGKILL' && line.proc === 'stubborn')).toBe(true);
    await expectNothingLeft(run);
  });
});

describe('a per-process grace', () => {
  it('kills a process that ignores its stop signal once its own grace is over, not the global one', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'grace: 60s',
      'processes:',
      '  - name: stubborn',
      '    role: sidecar',
      `    command: ${yamlArgv(...fixtureArgv('ignore-term.sh', 'stubborn'))}`,
      `    grace: ${OWN_GRACE_MS}ms`,
      // Ready once its trap is installed, or the SIGTERM could end it before it had the chance to ignore it.
      `    readiness: { probe: "${announced('stubborn')}" }`,
      '  - name: app',
      '    role: app',
      '    command: ["true"]',
    ]);
    const run = track(await runSupervisor(['--log-format', 'json', '-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    expect(events.sequence()).toContain('stubborn ignored-term');
    const stops = run.logs.filter((line) => line.event === 'stopping' && line.proc === 'stubborn');
    expect(stops.map((line) => line.signal)).toEqual(['SIGTERM', 'SIGKILL']);
    const [term, kill] = stops.map((line) => Date.parse(String(line.time)));
    // A timer never fires early (the lines' times are whole milliseconds: 1 ms either way); the bound
    // leaves 180 ms for a loaded machine's lateness and is still under what a doubled timer takes.
    expect(kill! - term!).toBeGreaterThanOrEqual(OWN_GRACE_MS - 1);
    expect(kill! - term!).toBeLessThan(OWN_GRACE_KILL_BOUND_MS);
    await expectNothingLeft(run);
  });
});

describe('startup failures', () => {
  it('an init step that fails stops started sidecars, never starts the app, and exits with its code', async () => {
    const events = createEvents();
    const port = await freePort();
    const run = track(
      await runSupervisor(
        [
          ['--sidecar', `a=${tcpServer('a', port)}`],
          ['--ready', `a=tcp://127.0.0.1:${port}`],
          ['--init', `bad=${fixture('exit-with.sh', 'bad', '4')}`],
          ['--', '/bin/sh', '-c', `. ${fixture('record.sh')}; NAME=app; record start`],
        ].flat(),
        { env: { EVENTS: events.file } },
      ),
    );
    expect(run.code).toBe(4);
    expect(events.sequence()).toEqual(['a start', 'a listening', 'bad start', 'bad exit-4', 'a stop']);
    await expectNothingLeft(run);
  });

  it('a sidecar whose probe never passes before its deadline fails startup', async () => {
    const events = createEvents();
    const port = await freePort();
    const config = `${events.dir}/deadline.yaml`;
    writeFileSync(
      config,
      [
        'processes:',
        '  - name: slow',
        '    role: sidecar',
        // Nothing listens on the port. The deadline runs from the spawn, not from the
        // fixture's trap, so it is a generous bound for a shell to start in, not a race.
        `    command: ${JSON.stringify(fixture('serve.sh', 'slow'))}`,
        '    readiness:',
        `      probe: tcp://127.0.0.1:${port}`,
        '      deadline: 2s',
        '  - name: app',
        '    role: app',
        `    command: ${JSON.stringify(fixture('exit-with.sh', 'app', '0'))}`,
      ].join('\n'),
    );
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(1);
    expect(events.sequence()).toEqual(['slow start', 'slow stop']);
    expect(run.logs.find((line) => line.event === 'teardown')?.msg).toBe(
      'sidecar slow failed to start: not ready within its 2000ms deadline; the app will not start',
    );
    await expectNothingLeft(run);
  });

  it('a sidecar that exits before it is ready, with restart never, fails startup with its code', async () => {
    const events = createEvents();
    const port = await freePort();
    const run = track(
      await runSupervisor(
        [
          '--sidecar',
          `crash=${fixture('exit-with.sh', 'crash', '5')}`,
          '--ready',
          `crash=tcp://127.0.0.1:${port}`,
          '--restart',
          'crash=never',
          '--',
          ...fixtureArgv('exit-with.sh', 'app', '0'),
        ],
        { env: { EVENTS: events.file } },
      ),
    );
    expect(run.code).toBe(5);
    expect(events.sequence()).toEqual(['crash start', 'crash exit-5']);
    await expectNothingLeft(run);
  });

  it('exits 127 naming a program that does not exist, and starts nothing after it', async () => {
    const events = createEvents();
    const run = track(
      await runSupervisor(['--sidecar', 'proxy=no-such-proxy --flag', '--', ...fixtureArgv('exit-with.sh', 'app', '0')], {
        env: { EVENTS: events.file },
      }),
    );
    expect(run.code).toBe(127);
    expect(run.stderr()).toContain('no-such-proxy');
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(run);
  });

  it('exits 126 for an app that is not executable', async () => {
    const script = `${createEvents().dir}/no-exec-bit.sh`;
    writeFileSync(script, '#!/bin/sh\nexit 0\n', { mode: 0o644 });
    const run = track(await runSupervisor(['--', script]));
    expect(run.code).toBe(126);
    expect(run.stderr()).toContain('no-exec-bit.sh');
    await expectNothingLeft(run);
  });
});

describe('termination', () => {
  it('on SIGTERM stops the app first, then sidecars in reverse order, and exits with the app code', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor(
        [
          '--sidecar',
          `a=${fixture('serve.sh', 'a')}`,
          '--sidecar',
          `b=${fixture('serve.sh', 'b')}`,
          '--',
          ...fixtureArgv('serve.sh', 'app'),
        ],
        { env: { EVENTS: events.file } },
      ),
    );
    // Every one of them has its trap installed: the sidecars have no readiness probe, so the app may start first.
    await events.waitFor('a start', 'b start', 'app start');
    run.process.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(events.sequence().filter((entry) => entry.endsWith('stop'))).toEqual(['app stop', 'b stop', 'a stop']);
    await expectNothingLeft(run);
  });

  it('on SIGINT passes SIGINT to the app, whose death by it sets the exit code', async () => {
    const run = track(startSupervisor(['--', 'sleep', '300']));
    await run.waitForLog((line) => line.event === 'spawned' && line.proc === 'app');
    run.process.kill('SIGINT');
    expect((await run.exited).code).toBe(130);
    expect(run.logs.find((line) => line.event === 'stopping' && line.proc === 'app')).toMatchObject({ signal: 'SIGINT' });
    await expectNothingLeft(run);
  });

  it('on SIGTERM during startup stops what runs, starts nothing new, and exits non-zero promptly', async () => {
    const events = createEvents();
    const port = await freePort();
    const run = track(
      startSupervisor(
        [
          '--sidecar',
          `slow=${tcpServer('slow', port, 60_000)}`,
          '--ready',
          `slow=tcp://127.0.0.1:${port}`,
          '--',
          ...fixtureArgv('exit-with.sh', 'app', '0'),
        ],
        { env: { EVENTS: events.file } },
      ),
    );
    await events.waitFor('slow start');
    const signalled = Date.now();
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(143);
    expect(Date.now() - signalled).toBeLessThan(5_000);
    expect(events.sequence()).toEqual(['slow start', 'slow stop']);
    await expectNothingLeft(run);
  });
});

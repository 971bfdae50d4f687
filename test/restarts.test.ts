import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { announced, fixtureArgv, freePort, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { childrenOf, supervisorPid } from './support/namespaces.ts';
import { FIXTURES, NODE, runSupervisor, startSupervisor } from './support/supervisor.ts';

// Sidecars that stay up: restarts with backoff, liveness, fatal sidecars,
// event-driven probes and parallel start, through the real CLI.

const { track, events: createEvents, expectNothingLeft } = useHarness();
const recordApp = `. ${FIXTURES}record.sh; NAME=app; record start`;

describe('restarts', () => {
  it('restarts a sidecar that crashes before it is ready and keeps the sequence waiting for it', async () => {
    const events = createEvents();
    const port = await freePort();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${yamlArgv(`${FIXTURES}flaky.sh`, 'proxy', `${events.dir}/runs`, '2', NODE, `${FIXTURES}tcp-server.mjs`, 'proxy', String(port))}`,
      '    backoff: { initial: 50ms }',
      '    readiness:',
      `      probe: tcp://127.0.0.1:${port}`,
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv('/bin/sh', '-c', recordApp)}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    expect(events.sequence()).toEqual(['proxy crash', 'proxy crash', 'proxy start', 'proxy listening', 'app start', 'proxy stop']);
    const restarts = run.logs.filter((line) => line.event === 'restarting').map((line) => [line.attempt, line.delayMs]);
    expect(restarts).toEqual([
      [1, 0],
      [2, 50],
    ]);
    await expectNothingLeft(run);
  });

  // The first run forks a worker that stays in its process group and crashes; the second run
  // looks in /proc for that worker (pid and start time) before it announces itself.
  it.each([
    ['as a subreaper', false],
    ['as PID 1', true],
  ])('starts a restart only once what the last run left in its process group is gone (%s)', async (_mode, pid1) => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${yamlArgv(...fixtureArgv('leave-in-group.sh', 'proxy', `${events.dir}/leftover`))}`,
      '    readiness:',
      `      probe: ${announced('proxy')}`,
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv('/bin/sh', '-c', recordApp)}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file }, pid1 }));
    expect(run.code).toBe(0);
    expect(events.sequence()).toEqual(['proxy crash', 'proxy leftover-gone', 'proxy start', 'app start']);
    expect(run.logs.find((line) => line.event === 'swept-group')).toMatchObject({ proc: 'proxy', outcome: 'terminated' });
    await expectNothingLeft(run);
  });

  it('kills what the last run left behind when it ignores SIGTERM past the process grace, then restarts', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${yamlArgv(...fixtureArgv('leave-in-group.sh', 'proxy', `${events.dir}/leftover`, 'stubborn'))}`,
      '    grace: 200ms',
      '    readiness:',
      `      probe: ${announced('proxy')}`,
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv('/bin/sh', '-c', recordApp)}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    expect(events.sequence()).toEqual(['proxy crash', 'proxy leftover-gone', 'proxy start', 'app start']);
    expect(run.logs.find((line) => line.event === 'swept-group')).toMatchObject({ proc: 'proxy', outcome: 'killed' });
    await expectNothingLeft(run);
  });

  it('restarts a started sidecar without re-running init steps or disturbing the app, and gives up after maxRestarts', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: crasher',
      '    role: sidecar',
      `    command: ${yamlArgv('/bin/sh', '-c', `. ${FIXTURES}record.sh; NAME=crasher; record start; exit 1`)}`,
      '    backoff: { initial: 50ms }',
      '    maxRestarts: 3',
      '  - name: step',
      '    role: init',
      `    command: ${yamlArgv(...fixtureArgv('exit-with.sh', 'step', '0'))}`,
      '  - name: app',
      '    role: app',
      // The app finishes once it has seen the crasher's fourth run (the third restart).
      `    command: ${yamlArgv('/bin/sh', '-c', `${recordApp}; until [ "$(grep -c 'crasher start' "$EVENTS")" -ge 4 ]; do sleep 0.02; done; record done`)}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    const sequence = events.sequence();
    expect(sequence.filter((entry) => entry === 'step start')).toHaveLength(1);
    expect(sequence.filter((entry) => entry === 'app start')).toHaveLength(1);
    expect(sequence.filter((entry) => entry === 'crasher start')).toHaveLength(4);
    expect(sequence.at(-1)).toBe('app done');
    expect(run.logs.filter((line) => line.event === 'restarting').map((line) => [line.attempt, line.delayMs])).toEqual([
      [1, 0],
      [2, 50],
      [3, 100],
    ]);
    await expectNothingLeft(run);
  });

  it('stops and restarts a sidecar whose liveness probe fails, while the app keeps running', async () => {
    const events = createEvents();
    const port = await freePort();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${yamlArgv(NODE, `${FIXTURES}tcp-server.mjs`, 'proxy', String(port))}`,
      '    readiness:',
      `      probe: tcp://127.0.0.1:${port}`,
      '    liveness:',
      `      probe: tcp://127.0.0.1:${port}`,
      '      period: 50ms',
      '      failureThreshold: 2',
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
    ]);
    const run = track(startSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    const first = events.read().find((entry) => entry.name === 'proxy' && entry.event === 'start')!;
    process.kill(first.pid, 'SIGUSR1'); // closes its port: a hung proxy
    await run.waitForLog((line) => line.event === 'liveness-failed');
    await run.waitForLog((line) => line.event === 'ready' && line.proc === 'proxy' && line.pid !== first.pid);
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(events.sequence()).toEqual([
      'proxy start',
      'proxy listening',
      'app start',
      'proxy closed',
      'proxy stop',
      'proxy start',
      'proxy listening',
      'app stop',
      'proxy stop',
    ]);
    await expectNothingLeft(run);
  });

  it('ends the pod with exit 69 when a fatal sidecar exits: the app is stopped first', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: db-proxy',
      '    role: sidecar',
      '    fatal: true',
      `    command: ${yamlArgv('/bin/sh', '-c', `. ${FIXTURES}record.sh; NAME=db-proxy; announce_start; until grep -q 'app start' "$EVENTS"; do sleep 0.02; done; record crash; exit 3`)}`,
      // Without it the app could start (and record so) before the db-proxy's shell got to run.
      `    readiness: { probe: ${JSON.stringify(announced('db-proxy'))} }`,
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(69);
    expect(events.sequence()).toEqual(['db-proxy start', 'app start', 'db-proxy crash', 'app stop']);
    await expectNothingLeft(run);
  });
});

describe('restarts during teardown', () => {
  // The app drains for 2 s after SIGTERM (and until its last request is answered), every request through the proxy; the
  // proxy is killed once, after the drain began. As PID 1, as in a pod.
  it('restarts a sidecar that dies while the app drains, so the app’s later requests are answered; the stops keep their order', async () => {
    const events = createEvents();
    const port = await freePort();
    const results = join(events.dir, 'results');
    const config = writeConfig(events.dir, [
      'grace: 20s',
      'processes:',
      '  - name: a',
      '    role: sidecar',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'a'))}`,
      `    readiness: { probe: ${JSON.stringify(announced('a'))} }`,
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${yamlArgv(NODE, `${FIXTURES}answer-server.mjs`, 'proxy', String(port))}`,
      `    readiness: { probe: "tcp://127.0.0.1:${port}" }`,
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(NODE, `${FIXTURES}drain-client.mjs`, 'app', String(port), '2000', results)}`,
    ]);
    const run = track(startSupervisor(['-c', config], { env: { EVENTS: events.file }, pid1: true }));
    await events.waitFor('app start');
    const supervisor = supervisorPid(run);
    process.kill(supervisor, 'SIGTERM');
    // The drain is under way and the proxy has answered it once.
    await events.waitFor('app drain-started', 'app answered');
    // The proxy as this test sees it: sidecar-init's child running answer-server.mjs.
    const proxy = childrenOf(supervisor).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('answer-server.mjs'));
    expect(proxy).toBeDefined();
    process.kill(proxy ?? 0, 'SIGKILL');
    const exit = await run.exited;
    expect(exit.code).toBe(0);

    const recorded = events.read();
    const sequence = recorded.map((entry) => `${entry.name} ${entry.event}`);
    // Restarted once, during the drain; then stopped in its turn: after the app, before a.
    expect(sequence.filter((entry) => entry === 'proxy listening')).toHaveLength(2);
    expect(sequence.slice(sequence.indexOf('app drain-started'))).toEqual([
      'app drain-started',
      'app answered',
      'proxy start',
      'proxy listening',
      'app done',
      'proxy stop',
      'a stop',
    ]);
    const restartedAt = recorded.filter((entry) => entry.event === 'listening').at(-1)?.ns ?? 0n;
    const requests = readFileSync(results, 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const [ns = '0', ...result] = line.split(' ');
        return { ns: BigInt(ns), result: result.join(' ') };
      });
    const afterRestart = requests.filter((request) => request.ns > restartedAt);
    expect(requests.filter((request) => request.ns < restartedAt && request.result === 'ok').length).toBeGreaterThan(0);
    expect(afterRestart.length).toBeGreaterThan(0);
    expect(afterRestart.filter((request) => request.result !== 'ok')).toEqual([]);
    // The log says why it ran again.
    expect(run.logs.find((line) => line.event === 'restarting')).toMatchObject({
      proc: 'proxy',
      msg: 'restart during teardown: proxy exited before its turn to stop; restart 1 in 0ms',
    });
    const stops = run.logs.filter((line) => line.event === 'stopping').map((line) => line.proc);
    expect(stops).toEqual(['app', 'proxy', 'a']);
    await expectNothingLeft(run);
  });
});

describe('event-driven readiness', () => {
  it('starts the next entry when a log line matches, and the line still reaches the container log', async () => {
    const events = createEvents();
    const proxy = `. ${FIXTURES}record.sh; NAME=proxy; record start; sleep 0.2; record said-ready; echo 'proxy: listening on :15000'; exec sleep 300`;
    const run = track(
      await runSupervisor(
        ['--sidecar', `proxy=/bin/sh -c "${proxy}"`, '--ready', 'proxy=log:listening on :\\d+', '--', '/bin/sh', '-c', recordApp],
        {
          env: { EVENTS: events.file },
        },
      ),
    );
    expect(run.code).toBe(0);
    expect(events.sequence()).toEqual(['proxy start', 'proxy said-ready', 'app start']);
    expect(run.stdout()).toContain('proxy: listening on :15000\n');
    await expectNothingLeft(run);
  });

  it('starts the next entry when a file appears', async () => {
    const events = createEvents();
    const flag = `${events.dir}/ready-flag`;
    const proxy = `. ${FIXTURES}record.sh; NAME=proxy; record start; sleep 0.2; record touch; touch ${flag}; exec sleep 300`;
    const run = track(
      await runSupervisor(['--sidecar', `proxy=/bin/sh -c "${proxy}"`, '--ready', `proxy=file:${flag}`, '--', '/bin/sh', '-c', recordApp], {
        env: { EVENTS: events.file },
      }),
    );
    expect(run.code).toBe(0);
    expect(events.sequence()).toEqual(['proxy start', 'proxy touch', 'app start']);
    await expectNothingLeft(run);
  });
});

describe('dependencies', () => {
  const threeSidecars = async (withAfter: boolean) => {
    const events = createEvents();
    const ports = [await freePort(), await freePort(), await freePort()];
    const lines = ['processes:'];
    ports.forEach((port, index) => {
      lines.push(
        `  - name: s${index}`,
        '    role: sidecar',
        `    command: ${yamlArgv(NODE, `${FIXTURES}tcp-server.mjs`, `s${index}`, String(port), '1000')}`,
        ...(withAfter ? ['    after: []'] : []),
        '    readiness:',
        `      probe: tcp://127.0.0.1:${port}`,
      );
    });
    lines.push('  - name: app', '    role: app', `    command: ${yamlArgv('/bin/sh', '-c', recordApp)}`);
    const run = track(await runSupervisor(['-c', writeConfig(events.dir, lines)], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    await expectNothingLeft(run);
    return { sequence: events.sequence(), logs: run.logs };
  };

  it('starts independent entries together when after: is used', async () => {
    const { sequence, logs } = await threeSidecars(true);
    // Together means all three were spawned before any of them was ready. The
    // fixtures' own "start" lines cannot show it: each is written whenever its
    // Node process gets to run, which on a loaded machine may be after another's port opened.
    const order = logs.map((line) => `${line.event} ${line.proc}`);
    const firstReady = order.findIndex((entry) => entry.startsWith('ready '));
    expect(firstReady).toBeGreaterThan(0);
    expect(
      order
        .slice(0, firstReady)
        .filter((entry) => entry.startsWith('spawned '))
        .sort(),
    ).toEqual(['spawned s0', 'spawned s1', 'spawned s2']);
    const lastListening = Math.max(...['s0', 's1', 's2'].map((name) => sequence.indexOf(`${name} listening`)));
    expect(sequence.indexOf('app start')).toBeGreaterThan(lastListening);
  });

  it('keeps list order without after:', async () => {
    const { sequence } = await threeSidecars(false);
    expect(sequence.slice(0, 7)).toEqual(['s0 start', 's0 listening', 's1 start', 's1 listening', 's2 start', 's2 listening', 'app start']);
  });
});

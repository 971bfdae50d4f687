import { describe, expect, it } from 'vitest';
import { fixtureArgv, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { useHttpServer } from './support/http-server.ts';
import { startStandin, useStandins } from './support/standin.ts';
import { runSupervisor, startSupervisor } from './support/supervisor.ts';

// Probe and hook command lines may carry tokens. Lines at info and above name
// the program and the process only; the whole command line is logged at debug.
// What a hook prints is its own output and is logged as it is. URLs carry
// tokens in their query and passwords in their userinfo: no line, at any
// level and in either format, and no config error, ever shows those.

const { track, events: createEvents, expectNothingLeft } = useHarness();
useStandins();

// Every request fails, so each URL also reaches a failure reason at warn.
// (Credentials in a URL are a config error, so only a query reaches a run.)
const server = useHttpServer((_request, response) => {
  response.writeHead(503).end('unavailable\n');
});

const SECRET = 'hunter2-secret';
const URL_ARGUMENT = 'http://u:EXECPASS@127.0.0.1:1/x?token=EXECTOKEN';

describe('command lines in the log', () => {
  it('keeps exec probe and hook arguments out of every line above debug', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'proxy'))}`,
      '    restart: never',
      `    readiness: { probe: { exec: ${yamlArgv('/bin/sh', '-c', 'exit 0', 'probe', `--password=${SECRET}`, URL_ARGUMENT)} } }`,
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
    expect(livenessFailed.msg).toMatch(/^exec:\/bin\/sh failed 1 time in a row; last: exec:\/bin\/sh: exited with code 1$/);
    expect(run.logs.filter((line) => line.event === 'hook-started').map((line) => [line.proc, line.hook, line.program])).toEqual([
      ['proxy', 'postStart', '/bin/sh'],
      ['app', 'preStop', '/bin/sh'],
    ]);
    expect(run.logs.find((line) => line.event === 'hook-done' && line.proc === 'app')).toMatchObject({
      level: 'warn',
      msg: 'preStop failed: exited with code 3',
    });
    // A hook's output is its own, logged as printed.
    expect(run.logs.find((line) => line.event === 'hook-output')).toMatchObject({
      level: 'info',
      proc: 'proxy',
      msg: 'postStart: postStart ran',
    });
    // At debug, the whole command lines are there for whoever debugs.
    const debugCommands = run.logs.filter((line) => line.level === 'debug' && JSON.stringify(line).includes(SECRET));
    expect(debugCommands.map((line) => line.event).sort()).toEqual(['hook-command', 'hook-command', 'probe-started', 'probe-started']);
    // But a URL among the arguments loses its userinfo and query there too.
    expect(run.stderr()).not.toMatch(/EXECPASS|EXECTOKEN/);
    expect(run.logs.find((line) => line.event === 'probe-started' && line.watch === 'readiness')?.probe).toContain(
      'http://***@127.0.0.1:1/x?***',
    );
    await expectNothingLeft(run);
  });
});

describe('URLs in the log', () => {
  const TOKENS = ['LIVETOKEN', 'HOOKTOKEN', 'READYTOKEN', 'QUITTOKEN'] as const;

  it.each(['json', 'text'])('keeps the query of every URL out of every line (--log-format %s, debug)', async (format) => {
    const events = createEvents();
    const proxy = await startStandin('pilot-agent', { args: ['--standin-ready-after=0.5'] });
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: mesh',
      '    role: external',
      `    match: { comm: pilot-agent, uid: ${proxy.uid} }`,
      '    allowHost: true',
      `    readiness: { probe: "${proxy.url(15021, '/healthz/ready?token=READYTOKEN')}", period: 100ms }`,
      `    stop: { http: "${proxy.url(15020, '/quitquitquit?token=QUITTOKEN')}" }`,
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'proxy'))}`,
      '    restart: never',
      `    liveness: { probe: "${server.base}/live?token=LIVETOKEN", period: 100ms, failureThreshold: 1 }`,
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
      `    preStop: { http: { url: "${server.base}/prestop?token=HOOKTOKEN" } }`,
    ]);
    const run = track(startSupervisor(['-c', config, '--log-level', 'debug', '--log-format', format], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    // The probes have failed (the readiness probe until the proxy got ready) before SIGTERM comes;
    // on SIGTERM the preStop fails and the quit URL stops the proxy.
    // The liveness failure's message, in either format (the text log leaves the event name out).
    await expect.poll(() => run.stderr().includes('in a row; last:')).toBe(true);
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(server.requests.map((request) => request.url)).toContain('/prestop?token=HOOKTOKEN');
    expect(proxy.events.map((event) => event.event)).toContain('quit');

    const output = run.stderr() + run.stdout();
    for (const token of TOKENS) expect(output).not.toContain(token);
    // The endpoints are still named, their secrets replaced.
    expect(output).toContain(`${server.base}/live?***`);
    expect(output).toContain(`${server.base}/prestop?***`);
    expect(output).toContain('/healthz/ready?***');
    expect(output).toContain('/quitquitquit?***');
    await expectNothingLeft(run);
  });

  it('keeps the password of a URL out of the config error that rejects it', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'drain: { http: { url: "http://drain:DRAINPASS@127.0.0.1:15000/drain?key=DRAINKEY" } }',
      'processes:',
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(2);
    const output = run.stderr() + run.stdout();
    expect(output).toContain('"http://***@127.0.0.1:15000/drain?***": credentials in a hook URL are not supported');
    expect(output).not.toContain('DRAINPASS');
    expect(output).not.toContain('DRAINKEY');
    expect(events.read()).toEqual([]);
  });

  it.each([
    ['--ready', 'nosuch=http://u:FLAGPASS@127.0.0.1:1/h?token=FLAGTOKEN', 'nosuch=http://***@127.0.0.1:1/h?***'],
    ['--quit', 'nosuch=http://127.0.0.1:1/q?key=FLAGTOKEN', 'nosuch=http://127.0.0.1:1/q?***'],
    ['--ready', 'db=http://u:FLAGPASS@127.0.0.1:1/h?token=FLAGTOKEN', 'db=http://***@127.0.0.1:1/h?***'],
  ])('keeps the secrets of a URL in %s out of the config error that names the flag', async (flag, value, shown) => {
    const run = track(await runSupervisor([flag, value, '--sidecar', 'db=true', '--', 'true']));
    expect(run.code).toBe(2);
    const output = run.stderr() + run.stdout();
    expect(output).toContain(`${flag} ${shown}: `);
    expect(output).not.toMatch(/FLAGPASS|FLAGTOKEN/);
    await expectNothingLeft(run);
  });
});

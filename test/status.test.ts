import { type AddressInfo, connect, createServer, type Server } from 'node:net';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePrometheusText } from './support/prometheus-parser.ts';
import { get } from './support/status-client.ts';
import { FIXTURES, type RunningSupervisor, startSupervisor } from './support/supervisor.ts';
import { fixtureArgv, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';

// The status server through the real CLI: real processes, real HTTP requests.

const { track, events: createEvents, expectNothingLeft } = useHarness();

async function statusPort(run: RunningSupervisor): Promise<number> {
  const line = await run.waitForLog((log) => log.event === 'status-server-listening');
  return line.port as number;
}

/** A sidecar ready while READY_FILE exists, then the app: runs until the file `stop` exists, then exits 5. */
function readinessConfig(dir: string): string {
  return writeConfig(dir, [
    'processes:',
    '  - name: proxy',
    '    role: sidecar',
    `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'proxy'))}`,
    `    readiness: { probe: "file:${dir}/ready", period: 20ms, periodAfterStart: 20ms }`,
    '  - name: job',
    '    role: app',
    `    command: ${yamlArgv('/bin/sh', '-c', `until [ -e ${dir}/stop ]; do sleep 0.02; done; exit 5`)}`,
  ]);
}

describe('the status server', () => {
  it('answers /readyz for the whole container: 503 while starting, 200 once the app runs, 503 while a sidecar is unready', async () => {
    const events = createEvents();
    const config = readinessConfig(events.dir);
    const run = track(
      startSupervisor(['-c', config, '--status-addr', '127.0.0.1:0', '--log-level', 'debug'], { env: { EVENTS: events.file } }),
    );
    const port = await statusPort(run);

    await run.waitForLog((log) => log.event === 'spawned' && log.proc === 'proxy');
    const starting = await get(port, '/readyz');
    expect(starting.status).toBe(503);
    expect(starting.body).toContain('sidecar-init: starting, the app is not running yet');
    expect((await get(port, '/healthz')).status).toBe(200);

    writeFileSync(`${events.dir}/ready`, '');
    await run.waitForLog((log) => log.event === 'spawned' && log.proc === 'job');
    expect(await get(port, '/readyz')).toEqual({ status: 200, body: 'ready\n' });

    // Readiness keeps being probed after start: the sidecar going unready makes the container unready.
    rmSync(`${events.dir}/ready`);
    await run.waitForLog((log) => log.event === 'probe-failed' && log.proc === 'proxy');
    expect(await get(port, '/readyz')).toEqual({ status: 503, body: 'not ready:\n  proxy (sidecar): readiness probe not passing\n' });
    writeFileSync(`${events.dir}/ready`, '');
    const failedAt = run.logs.findIndex((log) => log.event === 'probe-failed' && log.proc === 'proxy');
    await run.waitForLog((log) => log.event === 'probe-passed' && log.proc === 'proxy' && run.logs.indexOf(log) > failedAt);
    expect((await get(port, '/readyz')).status).toBe(200);

    writeFileSync(`${events.dir}/stop`, '');
    expect((await run.exited).code).toBe(5);
    // Closed before sidecar-init exited: nothing answers any more.
    await expect(get(port, '/healthz')).rejects.toThrow(/ECONNREFUSED/);
    await expectNothingLeft(run);
  });

  it('answers /status in plan order and /metrics in the Prometheus format, restarts and reaped orphans counted', async () => {
    const events = createEvents();
    const dir = events.dir;
    const config = writeConfig(dir, [
      'processes:',
      '  - name: flaky',
      '    role: sidecar',
      `    command: ${yamlArgv(`${FIXTURES}flaky.sh`, 'flaky', `${dir}/runs`, '2', ...fixtureArgv('serve.sh', 'flaky'))}`,
      '    backoff: { initial: 20ms }',
      '  - name: setup',
      '    role: init',
      `    command: ${yamlArgv(...fixtureArgv('make-orphans.sh', '5'))}`,
      '  - name: job',
      '    role: app',
      `    command: ${yamlArgv('/bin/sh', '-c', `until [ -e ${dir}/stop ]; do sleep 0.02; done`)}`,
    ]);
    const run = track(startSupervisor(['-c', config, '--status-addr', '127.0.0.1:0'], { env: { EVENTS: events.file } }));
    const port = await statusPort(run);
    const job = await run.waitForLog((log) => log.event === 'spawned' && log.proc === 'job');
    await run.waitForLog((log) => log.event === 'reaped');
    // flaky runs without a probe, so it counts as started at once: its third run may come after the app's start.
    await events.waitFor('flaky start');

    const status = JSON.parse((await get(port, '/status')).body);
    expect(status.phase).toBe('running');
    expect(status.ready).toBe(true);
    expect(status.processes.map((process: { name: string }) => process.name)).toEqual(['flaky', 'setup', 'job']);
    expect(status.processes[0]).toMatchObject({
      role: 'sidecar',
      state: 'running',
      ready: true,
      restarts: 2,
      lastExit: { code: 1, signal: null },
    });
    expect(status.processes[1]).toMatchObject({ role: 'init', state: 'exited', pid: null, lastExit: { code: 0, signal: null } });
    expect(status.processes[2]).toMatchObject({ role: 'app', state: 'running', pid: job.pid, ready: true, restarts: 0, lastExit: null });
    expect(Date.parse(status.processes[1].lastExit.at)).not.toBeNaN();

    const families = new Map(parsePrometheusText((await get(port, '/metrics')).body).map((family) => [family.name, family]));
    const sample = (family: string, name: string) => families.get(family)?.samples.find((entry) => entry.labels.name === name)?.value;
    expect(sample('sidecar_init_process_up', 'flaky')).toBe(1);
    expect(sample('sidecar_init_process_up', 'setup')).toBe(0);
    expect(sample('sidecar_init_process_ready', 'job')).toBe(1);
    expect(sample('sidecar_init_process_restarts', 'flaky')).toBe(2);
    expect(families.get('sidecar_init_reaped_orphans')?.samples[0]?.value).toBeGreaterThanOrEqual(1);
    expect(families.get('sidecar_init_phase')?.samples.find((entry) => entry.value === 1)?.labels.phase).toBe('running');
    expect(families.has('sidecar_init_teardown_seconds')).toBe(false);

    writeFileSync(`${dir}/stop`, '');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  it('answers /readyz with 503 while a sidecar waits to be restarted', async () => {
    const events = createEvents();
    const dir = events.dir;
    const config = writeConfig(dir, [
      'processes:',
      '  - name: cache',
      '    role: sidecar',
      `    command: ${yamlArgv('/bin/sh', '-c', `until [ -e ${dir}/crash ]; do sleep 0.02; done; exit 1`)}`,
      '    backoff: { initial: 1m }',
      '  - name: job',
      '    role: app',
      `    command: ${yamlArgv('/bin/sh', '-c', `until [ -e ${dir}/stop ]; do sleep 0.02; done; exit 0`)}`,
    ]);
    const run = track(startSupervisor(['-c', config, '--status-addr', '127.0.0.1:0'], { env: { EVENTS: events.file } }));
    const port = await statusPort(run);
    await run.waitForLog((log) => log.event === 'spawned' && log.proc === 'job');
    expect((await get(port, '/readyz')).status).toBe(200);
    // The first restart is immediate; the second crash waits out the backoff.
    writeFileSync(`${dir}/crash`, '');
    await run.waitForLog((log) => log.event === 'restarting' && log.proc === 'cache' && log.attempt === 2);
    expect(await get(port, '/readyz')).toEqual({ status: 503, body: 'not ready:\n  cache (sidecar): restarting\n' });
    const status = JSON.parse((await get(port, '/status')).body);
    expect(status.processes[0]).toMatchObject({ name: 'cache', state: 'backoff', pid: null, restarts: 1, lastExit: { code: 1 } });
    writeFileSync(`${dir}/stop`, '');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  it('counts the orphans it reaps as PID 1', async () => {
    const events = createEvents();
    const dir = events.dir;
    const app = `${FIXTURES}make-orphans.sh 20; touch ${dir}/made; until [ -e ${dir}/stop ]; do sleep 0.02; done`;
    const run = track(
      startSupervisor(['--status-addr', '127.0.0.1:0', '--', '/bin/sh', '-c', app], { env: { EVENTS: events.file }, pid1: true }),
    );
    const port = await statusPort(run);
    await run.waitForLog((log) => log.event === 'reaped');
    const reaped = () =>
      get(port, '/metrics').then(
        ({ body }) => parsePrometheusText(body).find((family) => family.name === 'sidecar_init_reaped_orphans')?.samples[0]?.value ?? 0,
      );
    // Each orphan is reaped as it dies; all 20 are counted once the last has been.
    await expect.poll(reaped, { timeout: 15_000 }).toBe(20);
    const status = JSON.parse((await get(port, '/status')).body);
    expect(status.reapedOrphans).toBe(20);
    writeFileSync(`${dir}/stop`, '');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  it('is not disturbed by bad requests, and changes no exit code', async () => {
    const events = createEvents();
    const config = readinessConfig(events.dir);
    writeFileSync(`${events.dir}/ready`, '');
    const run = track(startSupervisor(['-c', config, '--status-addr', '127.0.0.1:0'], { env: { EVENTS: events.file } }));
    const port = await statusPort(run);
    await run.waitForLog((log) => log.event === 'spawned' && log.proc === 'job');
    const garbage = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end('\x00\x01 NOT HTTP\r\n\r\n'));
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => {
        received += chunk;
      });
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect((await get(port, '/readyz', 'POST')).status).toBe(405);
    expect((await get(port, '/nope')).status).toBe(404);
    expect((await get(port, '/readyz')).status).toBe(200);
    writeFileSync(`${events.dir}/stop`, '');
    expect((await run.exited).code).toBe(5);
    await expectNothingLeft(run);
  });

  it('fails the start when its port is taken: exit 2, nothing started, one line naming the address and the cause, no stack', async () => {
    const events = createEvents();
    const terminationLog = join(events.dir, 'termination-log');
    // The holder takes a port the OS gives it, so no one can grab it in between.
    const holder = await new Promise<Server>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => resolve(server));
    });
    const port = (holder.address() as AddressInfo).port;
    try {
      const args = [
        '--status-addr',
        `127.0.0.1:${port}`,
        '--termination-log',
        terminationLog,
        '--',
        ...fixtureArgv('exit-with.sh', 'job', '4'),
      ];
      const run = track(startSupervisor(args, { env: { EVENTS: events.file } }));
      expect((await run.exited).code).toBe(2);
      // A readinessProbe on /readyz would never pass: nothing runs without the server.
      expect(events.sequence()).toEqual([]);
      const failed = run.logs.filter((log) => log.event === 'status-server-failed');
      expect(failed).toHaveLength(1);
      const reason = `the status server cannot listen on 127.0.0.1:${port}: the port is taken (in a pod, another container listens on it); choose another port for --status-addr; nothing was started`;
      expect(failed[0]).toMatchObject({ level: 'error', address: `127.0.0.1:${port}`, code: 'EADDRINUSE', msg: reason });
      expect(failed[0]).not.toHaveProperty('err');
      expect(run.stderr()).not.toMatch(/\n\s+at /);
      expect(run.logs.some((log) => log.event === 'spawned')).toBe(false);
      expect(readFileSync(terminationLog, 'utf8')).toBe(`${reason}\n`);
      // The text log says the same in one line.
      const text = track(startSupervisor(['--log-format', 'text', ...args], { env: { EVENTS: events.file } }));
      expect((await text.exited).code).toBe(2);
      expect(
        text
          .stderr()
          .split('\n')
          .filter((line) => line.includes('cannot listen')),
      ).toEqual([
        expect.stringMatching(
          new RegExp(`^\\S+ ERROR sidecar-init the status server cannot listen on 127\\.0\\.0\\.1:${port}: .* code=EADDRINUSE$`),
        ),
      ]);
      await expectNothingLeft(run);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('reports teardown in /metrics while it runs', async () => {
    const events = createEvents();
    const dir = events.dir;
    const config = writeConfig(dir, [
      'processes:',
      '  - name: slow',
      '    role: sidecar',
      // Stops only once the test has looked at /metrics during teardown.
      `    command: ${yamlArgv('/bin/sh', '-c', `trap 'until [ -e ${dir}/release ]; do sleep 0.02; done; exit 0' TERM; touch ${dir}/trapped; while :; do sleep 1 & wait $!; done`)}`,
      '  - name: job',
      '    role: app',
      `    command: ${yamlArgv('/bin/sh', '-c', `until [ -e ${dir}/trapped ]; do sleep 0.02; done; exit 0`)}`,
    ]);
    const run = track(startSupervisor(['-c', config, '--status-addr', '127.0.0.1:0'], { env: { EVENTS: events.file } }));
    const port = await statusPort(run);
    await run.waitForLog((log) => log.event === 'stopping' && log.proc === 'slow');
    const families = new Map(parsePrometheusText((await get(port, '/metrics')).body).map((family) => [family.name, family]));
    expect(families.get('sidecar_init_phase')?.samples.find((entry) => entry.value === 1)?.labels.phase).toBe('stopping');
    expect(families.get('sidecar_init_teardown_seconds')?.samples[0]?.value).toBeGreaterThanOrEqual(0);
    expect((await get(port, '/readyz')).body).toContain('sidecar-init: stopping');
    writeFileSync(`${dir}/release`, '');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  it('listens where its address says: :PORT and [::]:PORT on IPv4 and IPv6, [::1]:PORT and 127.0.0.1:PORT on one loopback each', async () => {
    const reachable = async (address: string): Promise<string[]> => {
      const events = createEvents();
      const run = track(
        startSupervisor(['--status-addr', address, '--', ...fixtureArgv('record-signals.sh', 'app')], { env: { EVENTS: events.file } }),
      );
      const port = await statusPort(run);
      await events.waitFor('app start');
      const answered: string[] = [];
      for (const host of ['127.0.0.1', '::1']) {
        const answer = await get(port, '/healthz', 'GET', host).catch((error: NodeJS.ErrnoException) => error.code);
        if (typeof answer === 'object' && answer.status === 200) answered.push(host);
        else expect(answer).toBe('ECONNREFUSED');
      }
      run.process.kill('SIGTERM');
      expect((await run.exited).code).toBe(0);
      await expectNothingLeft(run);
      return answered;
    };
    expect(await reachable(':0')).toEqual(['127.0.0.1', '::1']);
    expect(await reachable('[::]:0')).toEqual(['127.0.0.1', '::1']);
    expect(await reachable('[::1]:0')).toEqual(['::1']);
    expect(await reachable('127.0.0.1:0')).toEqual(['127.0.0.1']);
  });
});

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { announced, fixtureArgv, freePort, shellJoin, tcpServer, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { supervisorPid } from './support/namespaces.ts';
import { getStatus } from './support/status-client.ts';
import {
  BIN,
  BIN_COMMAND,
  FIXTURES,
  MARKER_VARIABLE,
  NODE,
  type RunningSupervisor,
  runSupervisor,
  startSupervisor,
} from './support/supervisor.ts';

// The control socket and `sidecar-init ctl`, against a running sidecar-init:
// real sockets, real processes, another uid through setpriv.

const { track, events: createEvents, expectNothingLeft } = useHarness();
/** The checkout the tests run from: bin/, dist/, the fixtures and node_modules. */
const CHECKOUT = fileURLToPath(new URL('..', import.meta.url));
/**
 * `ctl` as nobody. CAP_DAC_READ_SEARCH only lets it read node and the bundle
 * wherever the checkout is (and reach the socket's folder); connecting needs
 * write permission on the socket itself, which it does not grant.
 */
const NOBODY = [
  'setpriv',
  '--reuid=65534',
  '--regid=65534',
  '--clear-groups',
  '--inh-caps=+dac_read_search',
  '--ambient-caps=+dac_read_search',
];

/** The neighbour's forged server and folder swapper (test/fixtures/forged-control.py), run by a python3 uid 1000 can reach. */
const FORGED_CONTROL = readFileSync(`${FIXTURES}forged-control.py`, 'utf8');

/** Resolves once path exists: a neighbour's server is listening, a swap has happened. */
async function waitForPath(path: string): Promise<void> {
  while (!existsSync(path)) await sleep(10);
}

interface CtlResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `sidecar-init ctl ARGS` to completion (as another user with `as`). */
function ctl(run: RunningSupervisor, args: readonly string[], as: readonly string[] = []): Promise<CtlResult> {
  const [command = '', ...argv] = [...as, ...BIN_COMMAND, 'ctl', ...args];
  const child = spawn(command, argv, { env: { ...process.env, [MARKER_VARIABLE]: run.marker }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/**
 * The line ctl prints first, naming the sidecar-init that answered: run's pid
 * as this test sees it, its config file or none; its start time written `…`
 * (withoutStart), which the test of two sidecar-inits checks.
 */
function answeredBy(run: RunningSupervisor, config?: string): string {
  return `answered by sidecar-init pid ${run.process.pid}, started …, ${config === undefined ? 'no config file' : `config ${config}`}\n`;
}

function withoutStart(result: CtlResult): CtlResult {
  const blank = (text: string) => text.replace(/^((?:sidecar-init ctl: )?answered by .*?, started )\S+,/m, '$1…,');
  return { ...result, stdout: blank(result.stdout), stderr: blank(result.stderr) };
}

/** A sidecar with a readiness port and the app, with the control socket and the status server. */
function startWithControl(dir: string, eventsFile: string) {
  return startWithControlAt(`${dir}/control.sock`, eventsFile);
}

async function startWithControlAt(socket: string, eventsFile: string) {
  const port = await freePort();
  const run = track(
    startSupervisor(
      [
        '--control',
        socket,
        '--status-addr',
        '127.0.0.1:0',
        '--sidecar',
        `proxy=${tcpServer('proxy', port)}`,
        '--ready',
        `proxy=tcp://127.0.0.1:${port}`,
        '--',
        ...fixtureArgv('record-signals.sh', 'app'),
      ],
      { env: { EVENTS: eventsFile } },
    ),
  );
  const statusPort = (await run.waitForLog((line) => line.event === 'status-server-listening')).port as number;
  await run.waitForLog((line) => line.event === 'control-listening');
  return { run, socket, statusPort };
}

describe('the control socket', () => {
  it('restarts a sidecar on request: a new pid that passes readiness again, and /status agrees', async () => {
    const events = createEvents();
    const { run, socket, statusPort } = await startWithControl(events.dir, events.file);
    await events.waitFor('app start');
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    const first = events.read().find((entry) => entry.name === 'proxy' && entry.event === 'start')!;

    const status = await ctl(run, ['--control', socket, 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^proxy +sidecar +running +${first.pid} +yes +0 *$`, 'm'));

    const restart = await ctl(run, ['--control', socket, 'restart', 'proxy']);
    expect(withoutStart(restart)).toMatchObject({ code: 0, stdout: `${answeredBy(run)}restarting proxy\n` });
    const ready = await run.waitForLog((line) => line.event === 'ready' && line.proc === 'proxy' && line.pid !== first.pid);
    const second = events.read().filter((entry) => entry.name === 'proxy' && entry.event === 'start')[1]!;
    expect(ready.pid).toBe(second.pid);
    const proxy = (await getStatus(statusPort)).processes.find((process) => process.name === 'proxy');
    expect(proxy).toMatchObject({ pid: second.pid, state: 'running', ready: true });
    const json = JSON.parse((await ctl(run, ['--control', socket, '--json', 'status'])).stdout);
    expect(json.processes.find((process: { name: string }) => process.name === 'proxy')).toMatchObject({ pid: second.pid, restarts: 1 });
    expect(run.logs.find((line) => line.event === 'control' && line.command === 'restart')).toMatchObject({ uid: 0, ok: true });

    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(events.sequence()).toEqual([
      'proxy start',
      'proxy listening',
      'app start',
      'proxy stop',
      'proxy start',
      'proxy listening',
      'app stop',
      'proxy stop',
    ]);
    await expectNothingLeft(run);
  });

  it('names a sidecar-init that is PID 1 of its namespace by its pid here, and by 1 there', async () => {
    const events = createEvents();
    const socket = `${events.dir}/control.sock`;
    const run = track(
      startSupervisor(['--control', socket, '--', ...fixtureArgv('serve.sh', 'app')], { env: { EVENTS: events.file }, pid1: true }),
    );
    await run.waitForLog((line) => line.event === 'control-listening');
    await events.waitFor('app start');
    const status = await ctl(run, ['--control', socket, 'status']);
    const here = supervisorPid(run);
    expect(here).not.toBe(1);
    expect(status.stdout).toMatch(
      new RegExp(`^answered by sidecar-init pid ${here} \\(1 in its own PID namespace\\), started \\S+, no config file\n`),
    );
    const json = JSON.parse((await ctl(run, ['--control', socket, '--json', 'status'])).stdout);
    expect(json.answeredBy).toMatchObject({ pid: here, pidInItsNamespace: 1, config: null });
    process.kill(here, 'SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  it('stops a sidecar until start, signals the app, and refuses to stop the app, saying why', async () => {
    const events = createEvents();
    const { run, socket } = await startWithControl(events.dir, events.file);
    await events.waitFor('app start');
    const first = events.read().find((entry) => entry.name === 'proxy' && entry.event === 'start')!;

    expect(await ctl(run, ['--control', socket, 'stop', 'proxy'])).toMatchObject({ code: 0 });
    await events.waitFor('proxy stop');
    await run.waitForLog((line) => line.event === 'exited' && line.proc === 'proxy');
    expect((await ctl(run, ['--control', socket, 'status'])).stdout).toMatch(/^proxy +sidecar +exited +- +no +0 *$/m);
    // Held: its restart policy (always) does not bring it back.
    expect(events.sequence().filter((entry) => entry === 'proxy start')).toHaveLength(1);

    const refused = await ctl(run, ['--control', socket, 'stop', 'app']);
    expect(withoutStart(refused)).toMatchObject({
      code: 1,
      stderr:
        'sidecar-init ctl: the app cannot be stopped on request: its exit ends the pod; send sidecar-init SIGTERM to stop everything\n' +
        `sidecar-init ctl: ${answeredBy(run)}`,
    });

    const signalled = await ctl(run, ['--control', socket, 'signal', 'app', 'hup']);
    expect(withoutStart(signalled)).toMatchObject({ code: 0, stdout: `${answeredBy(run)}sent SIGHUP to app\n` });
    await events.waitFor('app got-HUP');
    const started = await ctl(run, ['--control', socket, 'start', 'proxy']);
    expect(withoutStart(started)).toMatchObject({ code: 0, stdout: `${answeredBy(run)}starting proxy\n` });
    await run.waitForLog((line) => line.event === 'ready' && line.proc === 'proxy' && line.pid !== first.pid);

    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  it("restart runs the sidecar's preStop before its stop signal", async () => {
    const events = createEvents();
    const port = await freePort();
    const socket = `${events.dir}/control.sock`;
    const config = writeConfig(events.dir, [
      `control: ${socket}`,
      'processes:',
      '  - name: proxy',
      '    role: sidecar',
      `    command: ${yamlArgv(NODE, `${FIXTURES}tcp-server.mjs`, 'proxy', String(port))}`,
      `    readiness: { probe: "tcp://127.0.0.1:${port}" }`,
      `    preStop: { exec: ${yamlArgv('/bin/sh', '-c', `. ${FIXTURES}record.sh; NAME=proxy; record pre-stop`)} }`,
      '    stopSignal: SIGTERM',
      '    grace: 5s',
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
    ]);
    const run = track(startSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    const first = events.read().find((entry) => entry.name === 'proxy' && entry.event === 'start')!;
    expect(await ctl(run, ['--control', socket, 'restart', 'proxy'])).toMatchObject({ code: 0 });
    await run.waitForLog((line) => line.event === 'ready' && line.proc === 'proxy' && line.pid !== first.pid);
    expect(events.sequence()).toEqual([
      'proxy start',
      'proxy listening',
      'app start',
      'proxy pre-stop',
      'proxy stop',
      'proxy start',
      'proxy listening',
    ]);
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  it.each([
    ['a restart on request', [['restart', 'proxy']], 'restarting proxy\n'],
    [
      'a start after a stop',
      [
        ['stop', 'proxy'],
        ['start', 'proxy'],
      ],
      'starting proxy\n',
    ],
  ])(
    '%s, like every restart, starts the new run only once what the last one left in its process group is gone',
    async (_, requests, answer) => {
      const events = createEvents();
      const socket = `${events.dir}/control.sock`;
      const config = writeConfig(events.dir, [
        `control: ${socket}`,
        'processes:',
        '  - name: proxy',
        '    role: sidecar',
        `    command: ${yamlArgv(...fixtureArgv('leave-in-group.sh', 'proxy', `${events.dir}/leftover`, 'stays'))}`,
        '    grace: 200ms',
        `    readiness: { probe: "${announced('proxy')}" }`,
        '  - name: app',
        '    role: app',
        `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
      ]);
      const run = track(startSupervisor(['-c', config], { env: { EVENTS: events.file } }));
      await events.waitFor('app start');
      const first = events.read().find((entry) => entry.name === 'proxy' && entry.event === 'start')!;
      const answers = [];
      for (const request of requests) {
        answers.push(await ctl(run, ['--control', socket, ...request]));
        // A stop is answered as it begins: start only once the process is down.
        if (request[0] === 'stop') await run.waitForLog((line) => line.event === 'exited' && line.proc === 'proxy');
      }
      expect(withoutStart(answers.at(-1)!)).toMatchObject({ code: 0, stdout: `${answeredBy(run, config)}${answer}` });
      await run.waitForLog((line) => line.event === 'ready' && line.proc === 'proxy' && line.pid !== first.pid);
      // The worker ignored the stop signal and then SIGTERM; SIGKILL after the grace ended it before the new run.
      expect(events.sequence()).toEqual(['proxy start', 'app start', 'proxy leftover-gone', 'proxy start']);
      expect(run.logs.find((line) => line.event === 'swept-group')).toMatchObject({ proc: 'proxy', outcome: 'killed' });
      run.process.kill('SIGTERM');
      expect((await run.exited).code).toBe(0);
      await expectNothingLeft(run);
    },
  );

  it('refuses another uid: by the mode, and by its kernel credentials when the mode lets it in', async () => {
    const events = createEvents();
    const { run, socket } = await startWithControl(events.dir, events.file);
    await events.waitFor('app start');

    const byMode = await ctl(run, ['--control', socket, 'status'], NOBODY);
    expect(byMode.code).toBe(1);
    expect(byMode.stderr).toContain('EACCES');

    chmodSync(socket, 0o666);
    const byCredentials = await ctl(run, ['--control', socket, 'restart', 'proxy'], NOBODY);
    expect(byCredentials).toMatchObject({
      code: 1,
      stderr: "sidecar-init ctl: refused: uid 65534 is neither sidecar-init's own (0) nor root\n",
    });
    expect(run.logs.find((line) => line.event === 'control-refused')).toMatchObject({ uid: 65534 });
    expect(events.sequence().filter((entry) => entry === 'proxy start')).toHaveLength(1);

    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    // Its socket is gone at exit, and so is the name it was bound under before it was moved into place.
    expect(readdirSync(events.dir).filter((name) => name.includes('control.sock'))).toEqual([]);
    await expectNothingLeft(run);
  });

  it('never believes a forged server: a uid-1000 neighbour swapping the socket’s folder with its own (RENAME_EXCHANGE) in a 0777 folder without the sticky bit gets no request', async () => {
    const events = createEvents();
    // What an emptyDir at /tmp is: 0777, no sticky bit.
    const shared = mkdtempSync(join(tmpdir(), 'sidecar-init-neighbour-'));
    chmodSync(shared, 0o777);
    const real = join(shared, 'real');
    const forged = join(shared, 'forged');
    mkdirSync(real);
    const neighbour: ChildProcess[] = [];
    try {
      const { run, socket } = await startWithControlAt(join(real, 'control.sock'), events.file);
      await events.waitFor('app start');
      const asNeighbour = ['setpriv', '--reuid=1000', '--regid=1000', '--clear-groups', '/usr/bin/python3', '-c', FORGED_CONTROL];
      execFileSync('setpriv', ['--reuid=1000', '--regid=1000', '--clear-groups', 'mkdir', forged]);
      const requests = join(shared, 'requests');
      neighbour.push(
        spawn(asNeighbour[0]!, [...asNeighbour.slice(1), 'serve', join(forged, 'control.sock'), requests], { stdio: 'ignore' }),
      );
      await waitForPath(join(forged, 'control.sock'));
      const swapping = join(shared, 'swapping');
      const stop = join(shared, 'stop');
      neighbour.push(spawn(asNeighbour[0]!, [...asNeighbour.slice(1), 'swap', real, forged, swapping, stop], { stdio: 'ignore' }));
      await waitForPath(swapping);
      const answers: CtlResult[] = [];
      for (let round = 0; round < 20; round++) answers.push(await ctl(run, ['--control', socket, 'status']));
      writeFileSync(stop, '');
      for (const answer of answers) {
        expect(answer.stdout).not.toContain('FORGED');
        if (answer.code === 0) expect(answer.stdout).toMatch(/^app +app +running /m);
        else
          expect(answer.stderr).toMatch(
            /^sidecar-init ctl: refused: the control socket .* is served by uid 1000 \(pid \d+\), neither yours \(0\) nor root/,
          );
      }
      // The race was live: some runs met the neighbour's server, and it never heard a request.
      expect(answers.filter((answer) => answer.code === 1).length).toBeGreaterThan(0);
      expect(existsSync(requests)).toBe(false);
      run.process.kill('SIGTERM');
      expect((await run.exited).code).toBe(0);
      await expectNothingLeft(run);
    } finally {
      for (const each of neighbour) each.kill('SIGKILL');
      await Promise.all(neighbour.map((each) => (each.exitCode === null && each.signalCode === null ? once(each, 'exit') : undefined)));
      rmSync(shared, { recursive: true, force: true });
    }
  });

  it('listens before anything starts: a sidecar and an app whose first act is to use the socket find it', async () => {
    const events = createEvents();
    const socket = join(events.dir, 'control.sock');
    const seen = join(events.dir, 'sidecar-saw');
    const sidecar = `[ -S ${socket} ] && echo found > ${seen} || echo missed > ${seen}; exec sleep 300`;
    const app = `[ -S ${socket} ] || { echo "no socket yet" >&2; exit 3; }; exec "$@" ctl --control ${socket} status`;
    const run = track(
      await runSupervisor(
        ['--control', socket, '--sidecar', `first=${shellJoin('sh', '-c', sidecar)}`, '--', 'sh', '-c', app, 'app', ...BIN_COMMAND],
        {
          env: { EVENTS: events.file },
        },
      ),
    );
    expect(run.code, run.stderr()).toBe(0);
    expect(run.stdout()).toMatch(/^app +app +running /m);
    expect(readFileSync(seen, 'utf8')).toBe('found\n');
    await expectNothingLeft(run);
  });

  it('stays bounded: an endless line is refused, connections past the limit are closed, and SIGTERM still ends everything', async () => {
    const events = createEvents();
    const { run, socket } = await startWithControl(events.dir, events.file);
    await events.waitFor('app start');

    const long = await exchange(socket, 'x'.repeat(64 * 1024));
    const server = { pid: run.process.pid, startedAt: expect.any(String), config: null };
    expect(JSON.parse(long)).toEqual({ ok: false, error: 'the request is longer than 4096 bytes', server });
    // Counted in bytes: 1,400 three-byte characters are 4,200 bytes, a line or not.
    const wide = await exchange(socket, `${'€'.repeat(1_400)}\n`);
    expect(JSON.parse(wide)).toEqual({ ok: false, error: 'the request is longer than 4096 bytes', server });

    // Idle clients that never send a line: the server keeps at most 8 and closes the rest at once
    // (which one is closed depends on the order the server accepts them in).
    const idle: Socket[] = [];
    for (let index = 0; index < 9; index++) idle.push(await opened(socket));
    await Promise.race(idle.map((client) => new Promise((resolve) => client.once('close', resolve))));
    expect(idle.filter((client) => !client.destroyed).length).toBeLessThanOrEqual(8);

    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    for (const client of idle) client.destroy();
    await expectNothingLeft(run);
  });

  it('closes a client that sends its request a byte at a time, never idle, once the request deadline passes', async () => {
    const events = createEvents();
    const { run, socket } = await startWithControl(events.dir, events.file);
    await events.waitFor('app start');

    const slow = await opened(socket);
    slow.on('error', () => {});
    const closed = new Promise((resolve) => slow.once('close', resolve));
    // Twice a second, well inside the 5 s idle timeout: only the deadline for the whole line can end it.
    const trickle = setInterval(() => slow.write('s'), 500);
    await closed;
    clearInterval(trickle);
    expect(slow.destroyed).toBe(true);

    // The slot it held is free again: a request is answered.
    expect(JSON.parse(await exchange(socket, '{"cmd":"status"}\n'))).toMatchObject({ ok: true });
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });
});

describe('the control socket’s file', () => {
  it('never takes over a socket another process serves, and the other keeps answering', async () => {
    const events = createEvents();
    const path = `${events.dir}/control.sock`;
    // The supervisor's check connects and hangs up at once: a reset, not a failure.
    const other = createServer((client) => client.on('error', () => {}).end('other\n'));
    await new Promise<void>((resolve) => other.listen(path, resolve));
    try {
      const run = track(startSupervisor(['--control', path, '--', 'true']));
      const failed = await run.waitForLog((line) => line.event === 'control-failed');
      expect(failed.msg).toContain('is served by another process');
      expect((await run.exited).code).toBe(0);
      expect(await exchange(path, '')).toBe('other\n');
      await expectNothingLeft(run);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('counts a socket whose listener is too busy to accept as served, not stale', async () => {
    const events = createEvents();
    const path = `${events.dir}/control.sock`;
    // A listener that never accepts: once its backlog is full, a connect fails with EAGAIN, not ECONNREFUSED.
    const listener = spawn(
      'python3',
      [
        '-c',
        'import socket, sys, time; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(0); print("listening", flush=True); time.sleep(600)',
        path,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const held: Socket[] = [];
    try {
      await new Promise((resolve) => listener.stdout.once('data', resolve));
      const before = identity(path);
      let filled = false;
      while (!filled && held.length < 64) {
        const client = connect(path);
        held.push(client);
        filled = await new Promise<boolean>((resolve) => {
          client.once('connect', () => resolve(false));
          client.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EAGAIN'));
        });
      }
      expect(filled).toBe(true);
      const run = track(startSupervisor(['--control', path, '--', 'true']));
      const failed = await run.waitForLog((line) => line.event === 'control-failed');
      expect(failed.msg).toContain('is served by another process');
      expect((await run.exited).code).toBe(0);
      expect(identity(path)).toBe(before);
      await expectNothingLeft(run);
    } finally {
      for (const client of held) client.destroy();
      listener.kill('SIGKILL');
    }
  });

  it('replaces a stale socket left by an earlier run, and at exit removes only the socket it bound', async () => {
    const events = createEvents();
    const path = `${events.dir}/control.sock`;
    // Bound by a process that then exits without removing it: what a container restarted in place finds.
    const bindAndLeave = 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])';
    execFileSync('python3', ['-c', bindAndLeave, path]);
    const stale = identity(path);
    const { run } = await startWithControlAt(path, events.file);
    await events.waitFor('app start');
    expect(identity(path)).not.toBe(stale);
    expect(JSON.parse(await exchange(path, '{"cmd":"status"}\n'))).toMatchObject({ ok: true });

    // Another run takes the path over (after removing ours): at exit, sidecar-init leaves that one be.
    execFileSync('rm', [path]);
    execFileSync('python3', ['-c', bindAndLeave, path]);
    const replacement = identity(path);
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(identity(path)).toBe(replacement);
    await expectNothingLeft(run);
  });
});

describe('ctl restart --wait', () => {
  it('returns once the new run is ready, and exits 124 when it is not within --timeout', async () => {
    const events = createEvents();
    const port = await freePort();
    const socket = `${events.dir}/control.sock`;
    // The first run listens, every later one never does: the first restart comes back ready only if waited for.
    const runs = `${events.dir}/runs`;
    const proxy = `echo >> ${runs}; if [ "$(wc -l < ${runs})" -gt 2 ]; then exec sleep 1000; fi; exec ${tcpServer('proxy', port)}`;
    const run = track(
      startSupervisor(
        [
          '--control',
          socket,
          '--sidecar',
          `proxy=sh -c '${proxy}'`,
          '--ready',
          `proxy=tcp://127.0.0.1:${port}`,
          '--',
          ...fixtureArgv('serve.sh', 'app'),
        ],
        { env: { EVENTS: events.file } },
      ),
    );
    await events.waitFor('app start');
    const first = events.read().find((entry) => entry.name === 'proxy' && entry.event === 'start')!;

    const ready = await ctl(run, ['--control', socket, 'restart', '--wait', 'proxy']);
    const second = events.read().filter((entry) => entry.name === 'proxy' && entry.event === 'start')[1]!;
    expect(withoutStart(ready)).toEqual({ code: 0, stdout: `${answeredBy(run)}proxy is ready again (pid ${second.pid})\n`, stderr: '' });
    expect(second.pid).not.toBe(first.pid);
    // Answered only once ready: the ready line of the new run was logged before ctl returned.
    expect(run.logs.some((line) => line.event === 'ready' && line.proc === 'proxy' && line.pid === second.pid)).toBe(true);

    const late = await ctl(run, ['--control', socket, 'restart', '--wait', '--timeout', '1s', 'proxy']);
    expect(late.code).toBe(124);
    expect(withoutStart(late).stderr).toBe(
      `sidecar-init ctl: proxy is not ready again after 1000ms (state running)\nsidecar-init ctl: ${answeredBy(run)}`,
    );

    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });
});

/**
 * A private mount namespace whose /tmp is a fresh tmpfs: the default socket,
 * /tmp/sidecar-init-0, is this run's alone, not that of every sidecar-init
 * the machine runs. What the run needs from the old /tmp is bound back in at
 * its own path: the events folder, and the checkout and the tests' Node, which
 * a contributor's clone may keep under /tmp. `prepare` runs as root first,
 * e.g. what a hostile neighbour leaves in /tmp.
 */
function privateTmp(eventsDir: string, prepare = ':', tmpMode = '1777'): string[] {
  const kept = [eventsDir, CHECKOUT, dirname(BIN), dirname(realpathSync(NODE))].map(shellQuote);
  const script = [
    'set -e',
    'mount -t tmpfs -o size=1m tmpfs /mnt',
    ...kept.map((path, index) => `mkdir /mnt/kept${index} && mount --bind ${path} /mnt/kept${index}`),
    `mount -t tmpfs -o mode=${tmpMode},size=4m tmpfs /tmp`,
    ...kept.map((path, index) => `mkdir -p ${path} && mount --bind /mnt/kept${index} ${path}`),
    prepare,
    'exec "$@"',
  ].join('\n');
  return ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', script, 'private-tmp'];
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** ctl in the supervisor's mount namespace: its /tmp. */
function inItsMounts(run: RunningSupervisor): string[] {
  return ['nsenter', '-t', String(run.process.pid), '-m', '--'];
}

describe('the default control socket', () => {
  it('is opened without --control in a folder of its own (0700), and found by ctl without a flag', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor(['--log-level', 'debug', '--', ...fixtureArgv('serve.sh', 'app')], {
        env: { EVENTS: events.file },
        wrapper: privateTmp(events.dir),
      }),
    );
    await run.waitForLog((line) => line.event === 'control-listening');
    await events.waitFor('app start');
    const status = await ctl(run, ['status'], inItsMounts(run));
    expect(status.stderr).toBe('');
    expect(status).toMatchObject({ code: 0, stdout: expect.stringMatching(/^app +app +running /m) });
    const mode = execFileSync(
      'nsenter',
      [...inItsMounts(run), 'stat', '-c', '%a %u %F', '/tmp/sidecar-init-0', '/tmp/sidecar-init-0/control.sock'],
      {
        encoding: 'utf8',
      },
    );
    expect(mode).toBe('700 0 directory\n600 0 socket\n');
    const listening = run.logs.find((line) => line.event === 'control-listening');
    expect(listening).toMatchObject({ level: 'debug', path: '/tmp/sidecar-init-0/control.sock' });
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  it('beside a second sidecar-init of the uid: ctl names the one holding it, and the second says at info whose it is', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      `  - { name: first, role: app, command: ${yamlArgv(...fixtureArgv('serve.sh', 'first'))} }`,
    ]);
    const before = Date.now();
    const first = track(startSupervisor(['-c', config], { env: { EVENTS: events.file }, wrapper: privateTmp(events.dir) }));
    await events.waitFor('first start');
    // The second in the first one's /tmp, as two in one container would be; at the default log level.
    const second = track(
      startSupervisor(['--', ...fixtureArgv('serve.sh', 'second')], { env: { EVENTS: events.file }, wrapper: inItsMounts(first) }),
    );
    const taken = await second.waitForLog((line) => line.event === 'control-failed');
    expect(taken).toMatchObject({
      level: 'info',
      path: '/tmp/sidecar-init-0/control.sock',
      holderPid: first.process.pid,
      msg: expect.stringContaining(`is served by sidecar-init pid ${first.process.pid}`),
    });
    await events.waitFor('second start');

    const status = await ctl(first, ['status'], inItsMounts(first));
    expect(status).toMatchObject({ code: 0, stderr: '' });
    const [named, ...table] = status.stdout.split('\n');
    const answered = /^answered by sidecar-init pid (\d+), started (\S+), config (.+)$/.exec(named ?? '');
    expect(answered?.slice(1), named).toEqual([String(first.process.pid), expect.any(String), config]);
    const startedAt = Date.parse(answered?.[2] ?? '');
    expect(startedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(startedAt).toBeLessThanOrEqual(Date.now());
    expect(table.join('\n')).toMatch(/^first +app +running /m);
    const json = JSON.parse((await ctl(first, ['--json', 'status'], inItsMounts(first))).stdout);
    expect(json.answeredBy).toEqual({ pid: first.process.pid, pidInItsNamespace: first.process.pid, startedAt: answered?.[2], config });

    second.process.kill('SIGTERM');
    first.process.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect((await first.exited).code).toBe(0);
    await expectNothingLeft(second);
    await expectNothingLeft(first);
  });

  it('is not opened when /tmp is writable by others and not sticky (an emptyDir), with a warning; ctl refuses it too', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor(['--', ...fixtureArgv('serve.sh', 'app')], {
        env: { EVENTS: events.file },
        wrapper: privateTmp(events.dir, ':', '0777'),
      }),
    );
    const reason =
      '/tmp is writable by others and not sticky (mode 777), so anyone could swap /tmp/sidecar-init-0 for a folder of their own';
    const warning = await run.waitForLog((line) => line.event === 'control-failed');
    expect(warning).toMatchObject({ level: 'warn', msg: expect.stringContaining(reason) });
    await events.waitFor('app start');
    // Nothing was made in /tmp.
    expect(execFileSync('nsenter', [...inItsMounts(run), 'ls', '-A', '/tmp/'], { encoding: 'utf8' })).not.toContain('sidecar-init-0');
    // Even with the folder there as the server would make it, ctl does not use it.
    execFileSync('nsenter', [...inItsMounts(run), 'mkdir', '-m', '0700', '/tmp/sidecar-init-0']);
    const status = await ctl(run, ['status'], inItsMounts(run));
    expect(status.code).toBe(1);
    expect(status.stderr).toContain(`sidecar-init ctl: no default control socket: ${reason}`);
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  it.each([
    ['a folder another uid made', 'mkdir /tmp/sidecar-init-0 && chown 65534 /tmp/sidecar-init-0', 'belongs to uid 65534, not 0'],
    ['a symlink to elsewhere', 'mkdir /tmp/elsewhere && ln -s /tmp/elsewhere /tmp/sidecar-init-0', 'is not a directory (a symlink?)'],
    ['a folder open to others', 'mkdir -m 0777 /tmp/sidecar-init-0', 'is open to others (mode 777)'],
  ])('is not opened in %s, with a warning; the run goes on, and ctl refuses the folder too', async (_, prepare, reason) => {
    const events = createEvents();
    const run = track(
      startSupervisor(['--', ...fixtureArgv('serve.sh', 'app')], {
        env: { EVENTS: events.file },
        wrapper: privateTmp(events.dir, prepare),
      }),
    );
    const warning = await run.waitForLog((line) => line.event === 'control-failed');
    expect(warning).toMatchObject({ level: 'warn', msg: expect.stringContaining(reason) });
    await events.waitFor('app start');
    const status = await ctl(run, ['status'], inItsMounts(run));
    expect(status.code).toBe(1);
    expect(status.stderr).toContain(`sidecar-init ctl: no default control socket: /tmp/sidecar-init-0 ${reason}`);
    // Nothing was put in or changed: the folder holds what the neighbour left, nothing more.
    expect(execFileSync('nsenter', [...inItsMounts(run), 'ls', '-A', '/tmp/sidecar-init-0/'], { encoding: 'utf8' })).toBe('');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });
});

/** Which file is at path: an inode number is reused once its file is removed, its birth time to the nanosecond is not. */
function identity(path: string): string {
  const stat = lstatSync(path, { bigint: true });
  return `${stat.dev}:${stat.ino}:${stat.birthtimeNs}`;
}

function opened(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Writes `text` and resolves with everything the server answers before it closes. */
function exchange(path: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    socket.on('close', () => resolve(answer));
    socket.write(text);
  });
}

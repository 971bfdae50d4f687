import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixtureArgv, shellJoin, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { getStatus } from './support/status-client.ts';
import { FIXTURES, type RunningSupervisor, runSupervisor, startSupervisor } from './support/supervisor.ts';

// Readiness the process reports itself: systemd's notify socket (Debian's real
// systemd-notify, and the protocol spoken by a few lines of python) and s6's
// notification descriptor (Debian's real s6-svscan -d, and `echo >&3`).

const { track, events: createEvents, expectNothingLeft } = useHarness();
const PYTHON = '/usr/bin/python3';

async function statusPort(run: RunningSupervisor): Promise<number> {
  return (await run.waitForLog((log) => log.event === 'status-server-listening')).port as number;
}

describe('notify readiness (systemd)', () => {
  it('starts the app once systemd-notify --ready is sent; its STATUS= reaches the log and /status', async () => {
    const events = createEvents();
    const gate = `${events.dir}/go`;
    // The sidecar reports a status, then waits for the test before it says it is ready.
    const script = `. ${FIXTURES}record.sh; NAME=svc; record start; systemd-notify --status='warming up'; until [ -e ${gate} ]; do sleep 0.02; done; systemd-notify --ready --status=serving; exec sleep 300`;
    const run = track(
      startSupervisor(
        [
          '--status-addr',
          '127.0.0.1:0',
          '--sidecar',
          `svc=${shellJoin('/bin/sh', '-c', script)}`,
          '--ready',
          'svc=notify',
          '--',
          ...fixtureArgv('serve.sh', 'app'),
        ],
        { env: { EVENTS: events.file } },
      ),
    );
    const port = await statusPort(run);
    await run.waitForLog((line) => line.event === 'status' && line.status === 'warming up');
    expect((await getStatus(port)).processes.find((process) => process.name === 'svc')?.statusText).toBe('warming up');
    expect(events.sequence()).toEqual(['svc start']);
    writeFileSync(gate, '');
    await events.waitFor('app start');
    // Status lines are at most one a second: this one may come a moment after the app started.
    await run.waitForLog((line) => line.event === 'status' && line.status === 'serving');
    expect((await getStatus(port)).processes.find((process) => process.name === 'svc')?.statusText).toBe('serving');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  it('works for a sidecar run as another user: its socket is its own', async () => {
    const script = `systemd-notify --ready --status="as $(id -u)"; exec sleep 300`;
    const run = track(
      startSupervisor([
        '--sidecar',
        `svc=${shellJoin('/bin/sh', '-c', script)}`,
        '--user',
        'svc=nobody',
        '--ready',
        'svc=notify',
        '--',
        '/bin/true',
      ]),
    );
    expect((await run.exited).code).toBe(0);
    expect(run.logs.find((line) => line.event === 'status')).toMatchObject({ proc: 'svc', status: 'as 65534' });
    expect(run.logs.find((line) => line.event === 'ready')).toMatchObject({ proc: 'svc' });
    await expectNothingLeft(run);
  });

  it('restarts a process whose WATCHDOG=1 stops coming, and the new run passes readiness again', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: svc',
      '    role: sidecar',
      `    command: ${yamlArgv(PYTHON, `${FIXTURES}notify-speaker.py`, 'svc')}`,
      // Pings every 750ms: a loaded machine cannot make one late by the whole watchdog.
      '    readiness: { probe: { notify: { watchdog: 3s } } }',
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
    ]);
    const run = track(startSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    await events.waitFor('app start');
    const first = events.read().find((entry) => entry.name === 'svc' && entry.event === 'start')!;
    process.kill(first.pid, 'SIGUSR1'); // stops its WATCHDOG=1
    const missed = await run.waitForLog((line) => line.event === 'watchdog-missed');
    expect(missed.msg).toBe('no WATCHDOG=1 within its 3000ms watchdog');
    await run.waitForLog((line) => line.event === 'ready' && line.proc === 'svc' && line.pid !== first.pid);
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(events.sequence()).toEqual(['svc start', 'app start', 'svc hung', 'svc stop', 'svc start', 'app stop', 'svc stop']);
    await expectNothingLeft(run);
  });

  it('stays answering as PID 1 while a process floods its notify socket: status lines are bounded, SIGTERM is honoured', async () => {
    const events = createEvents();
    // Sends READY=1, then a different STATUS= as fast as it can, forever.
    const flood = [
      'import os, socket, time',
      'def record(event):',
      '    open(os.environ["EVENTS"], "a").write(f"{time.time_ns()} svc {event} {os.getpid()}\\n")',
      's = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.connect(os.environ["NOTIFY_SOCKET"])',
      's.send(b"READY=1")',
      'record("flooding")',
      'n = 0',
      'while True:',
      '    n += 1',
      '    try: s.send(f"STATUS=busy {n}".encode())',
      '    except BlockingIOError: pass',
    ].join('\n');
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: svc',
      '    role: sidecar',
      `    command: ${yamlArgv(PYTHON, '-c', flood)}`,
      '    readiness: { probe: notify }',
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
    ]);
    const run = track(startSupervisor(['-c', config], { env: { EVENTS: events.file }, pid1: true }));
    await events.waitFor('app start', 'svc flooding');
    // Two status lines at least (a second apart), while the flood goes on.
    await run.waitForLog((line) => line.event === 'status' && run.logs.filter((other) => other.event === 'status').length >= 2);
    // SIGTERM to sidecar-init itself, PID 1 of the namespace (unshare --fork is its parent).
    const pid1 = Number(readFileSync(`/proc/${run.process.pid}/task/${run.process.pid}/children`, 'utf8').trim().split(' ')[0]);
    const sentAt = performance.now();
    process.kill(pid1, 'SIGTERM');
    const exit = await run.exited;
    // A liveness bound, not a benchmark: the flood must not keep PID 1 from its teardown.
    expect(performance.now() - sentAt).toBeLessThan(10_000);
    expect(exit.code).toBe(0);
    const statusLines = run.logs.filter((line) => line.event === 'status');
    const spanSeconds = (Date.parse(String(statusLines.at(-1)?.time)) - Date.parse(String(statusLines[0]?.time))) / 1000;
    expect(statusLines.length).toBeLessThanOrEqual(Math.ceil(spanSeconds) + 2);
    await expectNothingLeft(run);
  });

  it('stays answering as PID 1 when a sidecar hands it sockets whose close would linger, with its READY=1', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: svc',
      '    role: sidecar',
      // Four sockets lingering 10 s each: a blocking close would hold PID 1 for 40 s.
      `    command: ${yamlArgv(PYTHON, `${FIXTURES}notify-lingering-sockets.py`, 'svc', '4', '10')}`,
      '    readiness: { probe: notify }',
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('record-signals.sh', 'app'))}`,
    ]);
    const run = track(startSupervisor(['-c', config], { env: { EVENTS: events.file }, pid1: true }));
    // The app starts only once the READY=1 that carried the sockets was handled, and their descriptors closed.
    await events.waitFor('svc sent', 'app start');
    const pid1 = Number(readFileSync(`/proc/${run.process.pid}/task/${run.process.pid}/children`, 'utf8').trim().split(' ')[0]);
    const sentAt = performance.now();
    process.kill(pid1, 'SIGHUP');
    await events.waitFor('app got-HUP');
    // A liveness bound, far below the 40 s a lingering close would take.
    expect(performance.now() - sentAt).toBeLessThan(5_000);
    process.kill(pid1, 'SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });

  it("ignores READY=1 from a process outside the sidecar's tree", async () => {
    const events = createEvents();
    const gate = `${events.dir}/go`;
    const script = `. ${FIXTURES}record.sh; NAME=svc; record start; until [ -e ${gate} ]; do sleep 0.02; done; systemd-notify --ready; exec sleep 300`;
    const run = track(
      startSupervisor(
        ['--sidecar', `svc=${shellJoin('/bin/sh', '-c', script)}`, '--ready', 'svc=notify', '--', ...fixtureArgv('serve.sh', 'app')],
        {
          env: { EVENTS: events.file },
        },
      ),
    );
    await events.waitFor('svc start');
    const svc = events.read().find((entry) => entry.name === 'svc')!;
    const socketPath = readFileSync(`/proc/${svc.pid}/environ`, 'utf8')
      .split('\0')
      .find((entry) => entry.startsWith('NOTIFY_SOCKET='))!
      .slice('NOTIFY_SOCKET='.length);
    // The test's own python, a process of the same user but not of the sidecar's tree, finds the socket.
    const sent = spawnSync(PYTHON, [
      '-c',
      'import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.connect(sys.argv[1]); s.send(b"READY=1")',
      socketPath,
    ]);
    expect(sent.status).toBe(0);
    const ignored = await run.waitForLog((line) => line.event === 'notify-ignored');
    expect(ignored.senderPid).toBe(sent.pid);
    expect(events.sequence()).toEqual(['svc start']);
    writeFileSync(gate, '');
    await events.waitFor('app start');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    await expectNothingLeft(run);
  });
});

describe('fd readiness (s6)', () => {
  it('starts the app once the sidecar writes a newline to descriptor 3 (echo >&3)', async () => {
    const events = createEvents();
    const gate = `${events.dir}/go`;
    const script = `. ${FIXTURES}record.sh; NAME=svc; record start; until [ -e ${gate} ]; do sleep 0.02; done; record said-ready; echo >&3; exec sleep 300`;
    const run = track(
      startSupervisor(
        ['--sidecar', `svc=${shellJoin('/bin/sh', '-c', script)}`, '--ready', 'svc=fd:3', '--', ...fixtureArgv('serve.sh', 'app')],
        {
          env: { EVENTS: events.file },
        },
      ),
    );
    await events.waitFor('svc start');
    writeFileSync(gate, '');
    await events.waitFor('app start');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(events.sequence()).toEqual(['svc start', 'svc said-ready', 'app start', 'app stop']);
    await expectNothingLeft(run);
  });

  it('starts the app once s6-svscan -d 4 says it is ready on its notification descriptor', async () => {
    const events = createEvents();
    const scanDir = `${events.dir}/scan`;
    mkdirSync(scanDir);
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: svscan',
      '    role: sidecar',
      `    command: ${yamlArgv('s6-svscan', '-d', '4', scanDir)}`,
      '    readiness: { probe: { fd: 4 } }',
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv('/bin/sh', '-c', `. ${FIXTURES}record.sh; NAME=app; record start`)}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    expect(events.sequence()).toEqual(['app start']);
    const ready = run.logs.find((line) => line.event === 'ready' && line.proc === 'svscan');
    expect(ready).toBeDefined();
    await expectNothingLeft(run);
  });

  it('never starts the app when the descriptor is closed without a newline: the deadline fails startup', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: svc',
      '    role: sidecar',
      `    command: ${yamlArgv('/bin/sh', '-c', 'printf not-a-newline >&3; exec 3>&-; exec sleep 300')}`,
      '    readiness: { probe: "fd:3", deadline: 1s }',
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(1);
    expect(run.stderr()).toContain('sidecar svc failed to start: not ready within its 1000ms deadline');
    expect(events.sequence()).toEqual([]);
    await expectNothingLeft(run);
  });
});

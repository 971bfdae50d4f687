import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { FIXTURES, startSupervisor } from './support/supervisor.ts';

// Containers of a pod that cannot share a PID namespace: each sidecar-init
// runs as PID 1 of a namespace of its own (unshare --pid --fork --mount-proc),
// and the two share nothing but a directory, as two containers share an
// emptyDir. The proxy side runs until the app side's file says exited; the
// app side waits for the proxy side's file to say ready, and at teardown for
// it to say exited.

const { track, events: createEvents, expectNothingLeft } = useHarness();

/** As another sidecar-init writes FILE: a fresh file renamed into place (here as root, the uid both sides run as). */
function announceAs(file: string, state: string, exitCode?: number): void {
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ state, exitCode, pid: 1, at: new Date().toISOString() })}\n`, { mode: 0o644 });
  renameSync(`${file}.tmp`, file);
}

const NOBODY = 65_534;

/**
 * A neighbour, uid 65534, forging STATE in FILE the way the shared folder lets
 * it: its own file, renamed over the other's (the folder is world-writable and
 * not sticky, as an emptyDir is).
 */
function forge(file: string, state: string, exitCode?: number): void {
  const text = JSON.stringify({ state, exitCode, pid: 1, at: new Date().toISOString() });
  execFileSync('setpriv', [
    `--reuid=${NOBODY}`,
    `--regid=${NOBODY}`,
    '--clear-groups',
    'sh',
    '-ec',
    'printf "%s\n" "$1" > "$2.forged" && mv -f "$2.forged" "$2"',
    'forge',
    text,
    file,
  ]);
  expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ state });
}

/** A folder every uid may write, as an emptyDir shared by containers of different users. */
function sharedFolder(dir: string): string {
  chmodSync(dir, 0o755);
  const shared = join(dir, 'shared');
  mkdirSync(shared);
  chmodSync(shared, 0o777);
  return shared;
}

/** What an --announce file says now. */
function announcedIn(file: string): { state: string; exitCode?: number } {
  return JSON.parse(readFileSync(file, 'utf8')) as { state: string; exitCode?: number };
}

describe('two sidecar-inits in separate PID namespaces, coordinated through files', () => {
  it('starts the app once the proxy side is ready, and the proxy side stops once the app side has exited', async () => {
    const events = createEvents();
    const proxyFile = join(events.dir, 'proxy');
    const appFile = join(events.dir, 'app');
    // The app records its start, then whether the proxy side said ready at that moment, then exits 3.
    const job = [
      'NAME=app',
      '. "$0"',
      'record start',
      'grep -q \'"state":"ready"\' "$1" && record saw-proxy-ready',
      'record exit-3',
      'exit 3',
    ].join('; ');
    const env = { EVENTS: events.file };
    // The app side first: it has to wait for a proxy side that is not there yet.
    const appSide = track(
      startSupervisor(
        [
          '--grace',
          '10s',
          '--announce',
          appFile,
          '--external',
          `proxy=announced:${proxyFile}`,
          '--',
          '/bin/sh',
          '-c',
          job,
          `${FIXTURES}record.sh`,
          proxyFile,
        ],
        { pid1: true, env },
      ),
    );
    await appSide.waitForLog((line) => line.event === 'starting');
    const proxySide = track(
      startSupervisor(['--grace', '10s', '--announce', proxyFile, '--until', appFile, '--', ...fixtureArgv('serve.sh', 'proxy')], {
        pid1: true,
        env,
      }),
    );

    const [appExit, proxyExit] = await Promise.all([appSide.exited, proxySide.exited]);
    expect(appExit).toEqual({ code: 3, signal: null });
    expect(proxyExit).toEqual({ code: 0, signal: null });

    const sequence = events.sequence();
    expect(sequence.filter((entry) => entry.startsWith('app '))).toEqual(['app start', 'app saw-proxy-ready', 'app exit-3']);
    // The proxy ran before the app was up and was stopped only after the app was down.
    expect(sequence.filter((entry) => entry.startsWith('proxy '))).toEqual(['proxy start', 'proxy stop']);
    expect(sequence.indexOf('proxy stop')).toBeGreaterThan(sequence.indexOf('app exit-3'));

    expect(appSide.logs.filter((line) => line.proc === 'proxy').map((line) => line.event)).toEqual(
      expect.arrayContaining(['external-found', 'ready']),
    );
    expect(proxySide.logs.find((line) => line.event === 'until-reached')).toMatchObject({ file: appFile, state: 'exited' });
    expect(announcedIn(appFile)).toMatchObject({ state: 'exited', exitCode: 3 });
    expect(announcedIn(proxyFile)).toMatchObject({ state: 'exited', exitCode: 0 });
    await expectNothingLeft(appSide);
    await expectNothingLeft(proxySide);
  });

  it('--until FILE=ready ends the run, with 0, once the file says ready', async () => {
    const events = createEvents();
    const other = join(events.dir, 'other');
    /** As another sidecar-init writes it: a fresh file renamed into place. */
    const announce = (state: string): void => {
      writeFileSync(`${other}.tmp`, `${JSON.stringify({ state, pid: 1, at: new Date().toISOString() })}\n`);
      renameSync(`${other}.tmp`, other);
    };
    announce('starting');
    const run = track(
      startSupervisor(['--grace', '10s', '--until', `${other}=ready`, '--', ...fixtureArgv('serve.sh', 'app')], {
        pid1: true,
        env: { EVENTS: events.file },
      }),
    );
    await events.waitFor('app start');
    // The app is up while the file says starting: that state is not the one waited for.
    expect(run.process.exitCode).toBeNull();
    announce('ready');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(events.sequence()).toEqual(['app start', 'app stop']);
    expect(run.logs.find((line) => line.event === 'until-reached')).toMatchObject({ file: other, state: 'ready' });
    await expectNothingLeft(run);
  });

  it('refuses a state that is not an announced one, naming the flag, exit 2, nothing started', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor(['--until', `${join(events.dir, 'other')}=done`, '--', ...fixtureArgv('serve.sh', 'app')], {
        env: { EVENTS: events.file },
      }),
    );
    expect(await run.exited).toEqual({ code: 2, signal: null });
    expect(run.stderr()).toContain(
      `--until ${join(events.dir, 'other')}=done: "done" is not an announced state; use starting, ready, stopping or exited`,
    );
    expect(events.sequence()).toEqual([]);
  });

  it('--until ignores an exited that another uid renamed over the file, warns naming that uid, and ends on the real one', async () => {
    const events = createEvents();
    const appFile = join(sharedFolder(events.dir), 'app');
    announceAs(appFile, 'starting');
    const proxySide = track(
      startSupervisor(['--grace', '10s', '--until', appFile, '--', ...fixtureArgv('serve.sh', 'proxy')], {
        pid1: true,
        env: { EVENTS: events.file },
      }),
    );
    await events.waitFor('proxy start');
    forge(appFile, 'exited', 0);
    // Read and refused (the supervisor exiting first fails this wait).
    const warning = await proxySide.waitForLog((line) => line.event === 'announcement-ignored');
    expect(warning).toMatchObject({ file: appFile, uid: NOBODY, expectedUid: 0 });
    expect(warning.msg).toContain(`owned by uid ${NOBODY}`);
    expect(proxySide.process.exitCode).toBeNull();
    expect(events.sequence()).toEqual(['proxy start']);
    expect(proxySide.logs.some((line) => line.event === 'until-reached')).toBe(false);

    announceAs(appFile, 'exited', 3);
    expect(await proxySide.exited).toEqual({ code: 0, signal: null });
    expect(events.sequence()).toEqual(['proxy start', 'proxy stop']);
    expect(proxySide.logs.find((line) => line.event === 'until-reached')).toMatchObject({ file: appFile, state: 'exited' });
    await expectNothingLeft(proxySide);
  });

  it('an announced: external forged ready, then exited, by another uid: the job waits for the real ready and teardown for the real exited', async () => {
    const events = createEvents();
    const shared = sharedFolder(events.dir);
    const proxyFile = join(shared, 'proxy');
    const appFile = join(shared, 'app');
    const appSide = track(
      startSupervisor(
        [
          '--grace',
          '10s',
          '--announce',
          appFile,
          '--external',
          `proxy=announced:${proxyFile}`,
          '--',
          '/bin/sh',
          '-c',
          'NAME=app; . "$0"; record start; exit 3',
          `${FIXTURES}record.sh`,
        ],
        { pid1: true, env: { EVENTS: events.file } },
      ),
    );
    await appSide.waitForLog((line) => line.event === 'starting');
    forge(proxyFile, 'ready');
    const ignoredReady = await appSide.waitForLog((line) => line.event === 'announcement-ignored');
    expect(ignoredReady).toMatchObject({ file: proxyFile, uid: NOBODY });
    // The real proxy side's first word: it is what the app side finds, not the forged ready.
    announceAs(proxyFile, 'starting');
    expect(await appSide.waitForLog((line) => line.event === 'external-found')).toMatchObject({ file: proxyFile, state: 'starting' });
    expect(events.sequence()).toEqual([]);

    announceAs(proxyFile, 'ready');
    await events.waitFor('app start');
    // The job is done and the app side waits for the proxy side to say exited: the neighbour says it first.
    await appSide.waitForLog((line) => line.event === 'external-stop-wait');
    forge(proxyFile, 'exited', 0);
    await appSide.waitForLog((line) => line.event === 'announcement-ignored' && line !== ignoredReady);
    expect(appSide.process.exitCode).toBeNull();

    announceAs(proxyFile, 'exited', 0);
    expect(await appSide.exited).toEqual({ code: 3, signal: null });
    expect(events.sequence()).toEqual(['app start']);
    expect(announcedIn(appFile)).toMatchObject({ state: 'exited', exitCode: 3 });
    await expectNothingLeft(appSide);
  });
});

import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureArgv, freePort, shellJoin, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { podWrapper, supervisorPid } from './support/namespaces.ts';
import type { EventLog } from './support/events.ts';
import { FIXTURES, type RunningSupervisor, startSupervisor } from './support/supervisor.ts';

// PID 1 never stops answering: nothing a sidecar prints or a user writes in a
// pattern may keep the supervisor from handling SIGTERM within its grace.

const { track, events: createEvents, expectNothingLeft } = useHarness();
/** A generous liveness bound for "SIGTERM was honoured": the grace is 1 s. */
const ANSWERS_WITHIN_MS = 10_000;
/**
 * A generous bound for a forwarded signal to reach the app (the promise is
 * 100 ms; the fixture's own `date` for the record and a loaded machine take
 * their share). A frozen event loop never forwards it at all.
 */
const FORWARDED_WITHIN_MS = 1_000;

/**
 * As PID 1: a SIGHUP reaches the app (record-signals.sh) within the bound, and
 * SIGTERM ends everything, exit 0, within its own.
 */
async function expectSignalsAnswered(run: RunningSupervisor, events: EventLog): Promise<void> {
  const supervisor = supervisorPid(run);
  const sentAt = Date.now();
  process.kill(supervisor, 'SIGHUP');
  await events.waitFor('app got-HUP');
  const receivedAt = Number((events.read().find((entry) => entry.event === 'got-HUP')?.ns ?? 0n) / 1_000_000n);
  expect(receivedAt - sentAt).toBeLessThan(FORWARDED_WITHIN_MS);
  process.kill(supervisor, 'SIGTERM');
  let stalled: NodeJS.Timeout | undefined;
  const exit = await Promise.race([run.exited, new Promise((resolve) => (stalled = setTimeout(resolve, ANSWERS_WITHIN_MS, 'stalled')))]);
  clearTimeout(stalled);
  expect(exit).toEqual({ code: 0, signal: null });
}
/** Other processes of the pod: enough that one search of /proc outlasts a 1ms probe period. */
const CROWD = 'i=0; while [ $i -lt 300 ]; do sleep 1000 & i=$((i + 1)); done';

describe('a log readiness pattern', () => {
  it('with catastrophic backtracking cannot stall the supervisor (it runs in linear time)', async () => {
    const events = createEvents();
    // 40 a's and a '!': ^(a+)+$ takes 2^40 steps on the backtracking engine.
    // The `ok` line after it is the one that matches: lines are tested in order,
    // so the app starting proves the bad line was tested and the loop went on.
    const sidecar = shellJoin(
      '/bin/sh',
      '-c',
      `. ${FIXTURES}record.sh; NAME=s; printf '%s!\\n' ${'a'.repeat(40)}; echo ok; record printed; exec sleep 1000`,
    );
    const run = track(
      startSupervisor(
        ['--grace', '1s', '--sidecar', `s=${sidecar}`, '--ready', 's=log:^(a+)+$|^ok$', '--', ...fixtureArgv('serve.sh', 'app')],
        { env: { EVENTS: events.file } },
      ),
    );
    await events.waitFor('app start');
    run.process.kill('SIGTERM');
    const exit = await Promise.race([run.exited, new Promise((resolve) => setTimeout(resolve, ANSWERS_WITHIN_MS, 'stalled'))]);
    expect(exit).not.toBe('stalled');
    expect(run.logs.some((line) => line.event === 'signal' && line.signal === 'SIGTERM')).toBe(true);
    await expectNothingLeft(run);
  });

  it('that cannot run in linear time is refused before anything starts, saying why', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor(
        [
          '--sidecar',
          `s=${shellJoin(...fixtureArgv('serve.sh', 's'))}`,
          '--ready',
          's=log:(a)\\1',
          '--',
          ...fixtureArgv('serve.sh', 'app'),
        ],
        {
          env: { EVENTS: events.file },
        },
      ),
    );
    expect((await run.exited).code).toBe(2);
    expect(run.stderr()).toMatch(/backreference .*cannot be matched in linear time/);
    expect(events.sequence()).toEqual([]);
  });
});

describe('probes at any period', () => {
  it('leave the supervisor forwarding signals at once, even when every attempt outlasts a 1ms period', async () => {
    const events = createEvents();
    const closedPort = await freePort();
    // In a namespace of its own, where an external may be looked for, beside a few hundred other
    // processes: one search of /proc then takes longer than the 1ms period. The app has
    // `after: []`, so it runs while every probe keeps failing at its period.
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: ext',
      '    role: external',
      '    match: { comm: nosuchproc }',
      '    optional: true',
      '    readiness: { deadline: 60s, period: 1ms }',
      '  - name: files',
      '    role: sidecar',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'files'))}`,
      `    readiness: { probe: "file:${join(events.dir, 'never')}", deadline: 60s, period: 1ms }`,
      '  - name: port',
      '    role: sidecar',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'port'))}`,
      `    readiness: { probe: "tcp://127.0.0.1:${closedPort}", deadline: 60s, period: 1ms }`,
      '  - name: app',
      '    role: app',
      '    after: []',
      `    command: ${yamlArgv(...fixtureArgv('record-signals.sh', 'app'))}`,
    ]);
    const run = track(startSupervisor(['--grace', '2s', '-c', config], { wrapper: podWrapper(CROWD), env: { EVENTS: events.file } }));
    await events.waitFor('app start', 'files start', 'port start');
    await run.waitForLog((line) => line.event === 'spawned' && line.proc === 'app');
    await expectSignalsAnswered(run, events);
    expect(events.sequence()).toContain('app stop');
    await expectNothingLeft(run);
  });
});

describe('a cmdline matcher', () => {
  it('with catastrophic backtracking cannot stall the supervisor, whatever the pod’s processes are called', async () => {
    const events = createEvents();
    // A process of another container whose command line is 40 a's and a '!': ^(a+)+$ would take
    // 2^40 steps on it with the backtracking engine, on every search.
    const name = `${'a'.repeat(40)}!`;
    const bin = join(events.dir, 'bin');
    mkdirSync(bin);
    symlinkSync('/bin/sleep', join(bin, name));
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: ext',
      '    role: external',
      '    match: { cmdline: "^(a+)+$" }',
      '    optional: true',
      '    readiness: { deadline: 60s, period: 10ms }',
      '  - name: app',
      '    role: app',
      '    after: []',
      `    command: ${yamlArgv(...fixtureArgv('record-signals.sh', 'app'))}`,
    ]);
    const run = track(
      startSupervisor(['--grace', '2s', '-c', config], {
        wrapper: podWrapper(`PATH=${bin}:$PATH ${name} 1000 &`),
        env: { EVENTS: events.file },
      }),
    );
    await events.waitFor('app start');
    await run.waitForLog((line) => line.event === 'spawned' && line.proc === 'app');
    await expectSignalsAnswered(run, events);
    await expectNothingLeft(run);
  });

  it('that cannot run in linear time is refused before anything starts, naming the file, the line and the field', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: ext',
      '    role: external',
      "    match: { cmdline: '(a+)\\1' }",
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
    ]);
    const run = track(startSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect((await run.exited).code).toBe(2);
    expect(run.stderr()).toMatch(
      /sidecar-init\.yaml:4:14 processes\[0\]\.match\.cmdline: .*backreference .*cannot be matched in linear time/,
    );
    expect(events.sequence()).toEqual([]);
  });
});

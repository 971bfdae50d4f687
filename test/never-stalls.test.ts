import { describe, expect, it } from 'vitest';
import { fixtureArgv, shellJoin } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { FIXTURES, startSupervisor } from './support/supervisor.ts';

// PID 1 never stops answering: nothing a sidecar prints or a user writes in a
// pattern may keep the supervisor from handling SIGTERM within its grace.

const { track, events: createEvents, expectNothingLeft } = useHarness();
/** A generous liveness bound for "SIGTERM was honoured": the grace is 1 s. */
const ANSWERS_WITHIN_MS = 10_000;

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

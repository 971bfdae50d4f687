import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fixture, fixtureArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { BIN_COMMAND, runSupervisor } from './support/supervisor.ts';

// sidecar-init's own log: JSON for pipelines, text for people; text is the
// default only when stderr is a terminal.

const { track, events: createEvents, expectNothingLeft } = useHarness();

const TEXT_LINE = /^\d{4}-\d\d-\d\dT[\d:.]+Z (INFO |WARN |ERROR|DEBUG|FATAL|TRACE) \S+ +\S+/;

/**
 * An init step, two sidecars without a probe and an app that exits 3: a run
 * whose every line is told. Without a control socket: the default one may be
 * another test's supervisor's, which adds a line saying so.
 */
function storyArgs(format: 'json' | 'text'): string[] {
  return [
    '--control',
    'none',
    '--log-format',
    format,
    '--init',
    `step=${fixture('exit-with.sh', 'step', '0')}`,
    '--sidecar',
    'side-a=sleep 30',
    '--sidecar',
    'side-b=sleep 30',
    '--',
    ...fixtureArgv('exit-with.sh', 'job', '3'),
  ];
}

/** A line without what changes from run to run: the time, PIDs, durations and how many processes are visible. */
function withoutVariables(line: string): string {
  return line
    .replace(/^\S+ /, '')
    .replace(/pid=\d+/g, 'pid=N')
    .replace(/budgetUsedMs=\d+/g, 'budgetUsedMs=N')
    .replace(/; running as .*? mode=/, '; running as … mode=')
    .replace(/namespace=\S+/, 'namespace=…');
}

describe('--log-format', () => {
  it('text writes one line per event that reads as a sentence: the process, then what happened to it, then the fields', async () => {
    const events = createEvents();
    const run = track(await runSupervisor(storyArgs('text'), { env: { EVENTS: events.file } }));
    expect(run.code).toBe(3);
    const lines = run.stderr().trimEnd().split('\n');
    expect(lines.every((line) => TEXT_LINE.test(line))).toBe(true);
    // No event name beside the message that says it ("exit exiting"), counts in the singular for one, no "app app".
    expect(lines.map(withoutVariables)).toEqual([
      'INFO  sidecar-init starting 1 init step, 2 sidecars, the app; running as … mode=subreaper namespace=… graceMs=25000',
      'INFO  step         spawned role=init pid=N',
      'INFO  step         exited role=init pid=N exitCode=0',
      'INFO  side-a       spawned role=sidecar pid=N',
      'INFO  side-a       ready once started (no readiness probe) role=sidecar pid=N',
      'INFO  side-b       spawned role=sidecar pid=N',
      'INFO  side-b       ready once started (no readiness probe) role=sidecar pid=N',
      'INFO  app          spawned role=app pid=N',
      'INFO  app          exited role=app pid=N exitCode=3',
      'INFO  sidecar-init the app exited; stopping sidecars in reverse order reason=app-exited graceMs=25000',
      'INFO  side-b       stopping role=sidecar pid=N signal=SIGTERM budgetUsedMs=N',
      'INFO  side-b       exited role=sidecar pid=N exitCode=143 signal=SIGTERM',
      'INFO  side-a       stopping role=sidecar pid=N signal=SIGTERM budgetUsedMs=N',
      'INFO  side-a       exited role=sidecar pid=N exitCode=143 signal=SIGTERM',
      // A line of sidecar-init's that names a process is still sidecar-init's: the process goes among the fields.
      'INFO  sidecar-init all processes stopped; exit code 3: the app exited with code 3 exitCode=3 budgetUsedMs=N reason=app-exited proc=app',
      'INFO  sidecar-init exiting with code 3 exitCode=3',
    ]);
    await expectNothingLeft(run);
  });

  it('json carries the same sentences as msg, and the event names beside them', async () => {
    const events = createEvents();
    const run = track(await runSupervisor(storyArgs('json'), { env: { EVENTS: events.file } }));
    expect(run.code).toBe(3);
    expect(
      run.logs.map((line) => [line.proc ?? 'sidecar-init', line.event, line.msg.replace(/; running as .*/, '; running as …')]),
    ).toEqual([
      ['sidecar-init', 'starting', 'starting 1 init step, 2 sidecars, the app; running as …'],
      ['step', 'spawned', 'spawned'],
      ['step', 'exited', 'exited'],
      ['side-a', 'spawned', 'spawned'],
      ['side-a', 'ready', 'ready once started (no readiness probe)'],
      ['side-b', 'spawned', 'spawned'],
      ['side-b', 'ready', 'ready once started (no readiness probe)'],
      ['app', 'spawned', 'spawned'],
      ['app', 'exited', 'exited'],
      ['sidecar-init', 'teardown', 'the app exited; stopping sidecars in reverse order'],
      ['side-b', 'stopping', 'stopping'],
      ['side-b', 'exited', 'exited'],
      ['side-a', 'stopping', 'stopping'],
      ['side-a', 'exited', 'exited'],
      ['app', 'finished', 'all processes stopped; exit code 3: the app exited with code 3'],
      ['sidecar-init', 'exit', 'exiting with code 3'],
    ]);
    await expectNothingLeft(run);
  });

  it('is json when stderr is not a terminal, and SIDECAR_INIT_LOG_FORMAT sets it too', async () => {
    const events = createEvents();
    const json = track(await runSupervisor(['--', ...fixtureArgv('exit-with.sh', 'job', '0')], { env: { EVENTS: events.file } }));
    expect(json.logs.map((line) => line.event)).toContain('spawned');
    const text = track(
      await runSupervisor(['--', ...fixtureArgv('exit-with.sh', 'job', '0')], {
        env: { EVENTS: events.file, SIDECAR_INIT_LOG_FORMAT: 'text' },
      }),
    );
    expect(text.logs).toEqual([]);
    expect(text.stderr()).toMatch(TEXT_LINE);
  });

  it('is text by default on a terminal', async () => {
    // script(1) runs sidecar-init with a pseudo-terminal as its stdout and stderr.
    const command = [...BIN_COMMAND, '--', 'true'].map((word) => `'${word}'`).join(' ');
    const child = spawn('script', ['-qefc', command, '/dev/null'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const lines = output.replaceAll('\r', '').trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => TEXT_LINE.test(line))).toBe(true);
  });
});

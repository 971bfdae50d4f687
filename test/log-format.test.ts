import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fixtureArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { BIN_COMMAND, runSupervisor } from './support/supervisor.ts';

// sidecar-init's own log: JSON for pipelines, text for people; text is the
// default only when stderr is a terminal.

const { track, events: createEvents } = useHarness();

const TEXT_LINE = /^\d{4}-\d\d-\d\dT[\d:.]+Z (INFO |WARN |ERROR|DEBUG|FATAL|TRACE) \S+ +\S+/;

describe('--log-format', () => {
  it('text writes one readable line per event: time, level, process, event, details', async () => {
    const events = createEvents();
    const run = track(
      await runSupervisor(['--log-format', 'text', '--', ...fixtureArgv('exit-with.sh', 'job', '3')], { env: { EVENTS: events.file } }),
    );
    expect(run.code).toBe(3);
    const lines = run.stderr().trimEnd().split('\n');
    expect(lines.every((line) => TEXT_LINE.test(line))).toBe(true);
    expect(lines.some((line) => /INFO {2}app +spawned role=app pid=\d+$/.test(line))).toBe(true);
    expect(lines.some((line) => /INFO {2}app +exited role=app pid=\d+ exitCode=3$/.test(line))).toBe(true);
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

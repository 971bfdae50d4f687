import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { BIN_COMMAND, MARKER_VARIABLE, runSupervisor, startSupervisor } from './support/supervisor.ts';

// Output modes through the real CLI: what reaches sidecar-init's own stdout and stderr.

const { track, events: createEvents, expectNothingLeft } = useHarness();

/** Lines of `text` that are process output, not sidecar-init's own JSON log. */
function outputLines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('{"level"'));
}

describe('output modes', () => {
  it('prefix: NAME | LINE, padded to the longest name, stdout to stdout and stderr to stderr, the last line flushed', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: db',
      '    role: init',
      `    command: ${yamlArgv('/bin/sh', '-c', 'echo migrated; echo warning >&2; printf "no newline"')}`,
      '  - name: web-server',
      '    role: app',
      `    command: ${yamlArgv('/bin/sh', '-c', 'i=1; while [ $i -le 500 ]; do echo "line $i"; i=$((i+1)); done; echo oops >&2; printf last')}`,
    ]);
    const run = track(await runSupervisor(['-c', config, '--output', 'prefix'], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    const lines = Array.from({ length: 500 }, (_, i) => `web-server | line ${i + 1}`);
    expect(outputLines(run.stdout())).toEqual(['db         | migrated', 'db         | no newline', ...lines, 'web-server | last']);
    expect(outputLines(run.stderr())).toEqual(['db         | warning', 'web-server | oops']);
    await expectNothingLeft(run);
  });

  it('json: one object per line with time, proc, stream and msg; a process of its own stays inherit', async () => {
    const events = createEvents();
    const config = writeConfig(events.dir, [
      'output: json',
      'processes:',
      '  - name: raw',
      '    role: init',
      '    output: inherit',
      `    command: ${yamlArgv('/bin/sh', '-c', 'echo untouched')}`,
      '  - name: job',
      '    role: app',
      `    command: ${yamlArgv('/bin/sh', '-c', 'echo \'say "hi"\'; echo bad >&2')}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    const [untouched, ...json] = outputLines(run.stdout());
    expect(untouched).toBe('untouched');
    expect(json.map((line) => JSON.parse(line))).toEqual([{ time: expect.any(String), proc: 'job', stream: 'stdout', msg: 'say "hi"' }]);
    const stderrRecords = run
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{"time"'))
      .map((line) => JSON.parse(line));
    expect(stderrRecords).toEqual([{ time: expect.any(String), proc: 'job', stream: 'stderr', msg: 'bad' }]);
  });

  it('prefix keeps a log readiness probe working: it reads the lines as the process wrote them', async () => {
    const events = createEvents();
    const run = track(
      await runSupervisor(
        [
          '--output',
          'prefix',
          '--sidecar',
          `db=/bin/sh -c 'echo starting; echo "ready to accept connections"; exec sleep 30'`,
          '--ready',
          'db=log:^ready to accept',
          '--',
          '/bin/sh',
          '-c',
          'echo done',
        ],
        { env: { EVENTS: events.file } },
      ),
    );
    expect(run.code).toBe(0);
    expect(outputLines(run.stdout())).toEqual(['db  | starting', 'db  | ready to accept connections', 'app | done']);
    await expectNothingLeft(run);
  });

  it('prefix passes bytes that are not UTF-8 through unchanged', async () => {
    const events = createEvents();
    const [command, ...args] = BIN_COMMAND;
    const child = spawn(
      command!,
      [...args, '--output', 'prefix', '--log-level', 'silent', '--', '/bin/sh', '-c', "printf 'a\\377\\376b\\n'"],
      {
        env: { ...process.env, EVENTS: events.file, [MARKER_VARIABLE]: `output-${process.pid}` },
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(Buffer.concat(chunks)).toEqual(Buffer.concat([Buffer.from('app | a'), Buffer.from([0xff, 0xfe]), Buffer.from('b\n')]));
  });

  it('a log reader that stops reading blocks the process, not sidecar-init, whose memory stays bounded', async () => {
    const events = createEvents();
    const run = track(
      startSupervisor(['--output', 'prefix', '--grace', '5s', '--', 'seq', '1', '1000000000'], {
        env: { EVENTS: events.file },
        stdoutUnread: true,
      }),
    );
    const spawned = await run.waitForLog((log) => log.event === 'spawned');
    const appPid = spawned.pid as number;
    await waitUntil(() => isBlockedInWrite(appPid));
    const supervisorPid = run.process.pid!;
    const rssMiB = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${supervisorPid}/status`, 'utf8'))?.[1]) / 1024;
    expect(rssMiB).toBeLessThan(200);
    // PID 1 still answers: SIGTERM stops the app (exit 143, the app's code) within the grace.
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(143);
    await expectNothingLeft(run);
  });
});

const WRITE_SYSCALL: Partial<Record<NodeJS.Architecture, string>> = { x64: '1', arm64: '64' };

function isBlockedInWrite(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'S' && readFileSync(`/proc/${pid}/syscall`, 'utf8').split(' ')[0] === WRITE_SYSCALL[process.arch];
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the app to block in write()');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

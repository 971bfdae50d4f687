import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureArgv, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { uniqueUid } from './support/standin.ts';
import { runSupervisor } from './support/supervisor.ts';

// What other processes choose reaches sidecar-init's text log and prefixed
// output: a process's comm, a hook's and a child's output lines. Whatever
// bytes they hold, what sidecar-init writes has no control character but the
// newline that ends each line: ESC, BEL, CR, tab and a newline inside a field
// (which would forge a second line) are written as visible escapes.

const { track, expectNothingLeft, events: createEvents } = useHarness();

/** Any raw control character other than the newline that ends a line: C0, DEL, C1 (UTF-8 0xC2 0x80–0x9F). */
function controlBytes(output: Buffer): number[] {
  const found: number[] = [];
  output.forEach((byte, index) => {
    const next = output[index + 1] ?? 0;
    if ((byte < 0x20 && byte !== 0x0a) || byte === 0x7f || (byte === 0xc2 && next >= 0x80 && next <= 0x9f)) found.push(byte);
  });
  return found;
}

// Names itself (comm, 15 bytes at most) with the escapes in argv[1] decoded,
// says so, and exits 0 on SIGTERM. Inline, since it runs as another UID that
// may not be able to read the checkout.
const NAMED_PROCESS = [
  'import signal, sys',
  "open('/proc/self/comm', 'wb').write(sys.argv[1].encode().decode('unicode_escape').encode('latin1'))",
  'signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))',
  "sys.stdout.write('named\\n'); sys.stdout.flush()",
  'while True: signal.pause()',
].join('\n');

const named: ChildProcess[] = [];

afterEach(() => {
  for (const child of named.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts a process of `uid` whose comm is `comm` (Python escapes); resolves once it has renamed itself, with its exit. */
async function startNamed(comm: string, uid: number): Promise<{ readonly exited: Promise<unknown[]> }> {
  const child = spawn('python3', ['-c', NAMED_PROCESS, comm], { uid, gid: uid, cwd: '/', stdio: ['ignore', 'pipe', 'inherit'] });
  named.push(child);
  const exited = once(child, 'exit');
  const [chunk] = (await once(child.stdout ?? child, 'data')) as [Buffer];
  expect(chunk.toString()).toBe('named\n');
  return { exited };
}

describe('control characters from other processes, --log-format text', () => {
  it('a comm with ESC[2J, BEL, CR or a newline and "FATAL forged" is written escaped, on its own line', async () => {
    const events = createEvents();
    const uid = uniqueUid();
    const clearer = await startNamed('\\x1b[2J\\x07\\r', uid);
    const forger = await startNamed('\\nFATAL forged', uid);
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: odd',
      '    role: external',
      `    match: { uid: ${uid}, maxMatches: 2 }`,
      '    allowHost: true',
      '    stop: { signal: SIGTERM }',
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('exit-with.sh', 'app', '0'))}`,
    ]);
    const run = track(await runSupervisor(['-c', config, '--log-format', 'text'], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    // Both were found and stopped.
    expect(await Promise.all([clearer.exited, forger.exited])).toEqual([
      [0, null],
      [0, null],
    ]);
    const log = Buffer.from(run.stderr());
    expect(controlBytes(log)).toEqual([]);
    const found = run
      .stderr()
      .split('\n')
      .find((line) => / INFO {2}\S+ +found /.test(line));
    expect(found).toContain('\\x1b[2J\\x07\\r (PID');
    expect(found).toContain('\\nFATAL forged (PID');
    expect(run.stderr()).not.toMatch(/^FATAL/m);
    await expectNothingLeft(run);
  });

  it("hook output and a child's output in prefix mode are written escaped; the log has no raw control character", async () => {
    const events = createEvents();
    const print = (what: string) => `printf '${what} \\033[2J\\a\\r\\tFATAL forged\\n'; printf '${what} err \\033]0;title\\a\\n' >&2`;
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: step',
      '    role: init',
      '    output: prefix',
      `    command: ${yamlArgv('/bin/sh', '-c', print('child'))}`,
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('exit-with.sh', 'app', '0'))}`,
      `    postStart: { exec: ${yamlArgv('/bin/sh', '-c', print('hook'))} }`,
    ]);
    const run = track(await runSupervisor(['-c', config, '--log-format', 'text'], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    expect(events.sequence()).toEqual(['app start', 'app exit-0']);
    const stdout = Buffer.from(run.stdout());
    const stderr = Buffer.from(run.stderr());
    expect(controlBytes(stdout)).toEqual([]);
    expect(controlBytes(stderr)).toEqual([]);
    expect(run.stdout()).toContain('step | child \\x1b[2J\\x07\\r\\tFATAL forged\n');
    expect(run.stderr()).toContain('step | child err \\x1b]0;title\\x07\n');
    const hookLines = run
      .stderr()
      .split('\n')
      .filter((line) => line.includes(' postStart: '));
    expect(hookLines).toHaveLength(2);
    expect(hookLines[0]).toContain('hook \\x1b[2J\\x07\\r\\tFATAL forged');
    expect(hookLines[1]).toContain('hook err \\x1b]0;title\\x07');
    await expectNothingLeft(run);
  });
});

/** C1, the line and paragraph separators and the bidirectional controls, as UTF-8 text: what JSON.stringify leaves raw. */
const INVISIBLE = /[\u0080-\u009f\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/u;

describe('C1 controls, line separators and bidirectional overrides from other processes', () => {
  it.each(['json', 'text'])('a comm with CSI, U+2028 and a right-to-left override is written escaped in the %s log', async (format) => {
    const events = createEvents();
    const uid = uniqueUid();
    // UTF-8 bytes: U+009B (CSI), U+2028, U+202E (RLO); 12 of comm's 15.
    const hostile = await startNamed('\\xc2\\x9b2J\\xe2\\x80\\xa8X\\xe2\\x80\\xaeY', uid);
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: odd',
      '    role: external',
      `    match: { uid: ${uid} }`,
      '    allowHost: true',
      '    stop: { signal: SIGTERM }',
      '  - name: app',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('exit-with.sh', 'app', '0'))}`,
    ]);
    const run = track(await runSupervisor(['-c', config, '--log-format', format], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    expect(await hostile.exited).toEqual([0, null]);
    const lines = run.stderr().split('\n');
    expect(lines.filter((line) => INVISIBLE.test(line))).toEqual([]);
    expect(controlBytes(Buffer.from(run.stderr()))).toEqual([]);
    if (format === 'json') {
      // Escaped as \uHHHH: the same name to a JSON parser.
      const found = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { event?: string; msg: string });
      expect(found.find((line) => line.event === 'external-found')?.msg).toContain('\u009b2J\u2028X\u202eY (PID');
    } else {
      expect(lines.find((line) => / INFO {2}\S+ +found /.test(line))).toContain('\\x9b2J\\u2028X\\u202eY (PID');
    }
    await expectNothingLeft(run);
  });
});

import { chmod, copyFile, readFile, readlink, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useProcessSandbox } from '../../test/support/process-sandbox.ts';
import type { SpawnRequest, SpawnResult } from './child.ts';
import { libuvChildren, nativeChildren } from './spawn.ts';

// Every long-lived child is forked by the addon, with pipes (piped output, a
// readiness fd) or without, and must begin as node:child_process's children
// did, so that how a process was started never shows: each case runs without
// a pipe and with one per piped mode ('capture' and 'tee' pipe stdout and
// stderr, 'inherit-tee' too with stdin inherited, a readiness fd at 3 alone).

const sandbox = useProcessSandbox('spawn-native-test-');

type Path = 'no pipe' | 'capture' | 'tee' | 'fd:3';
const PATHS: readonly Path[] = ['no pipe', 'capture', 'tee', 'fd:3'];

const PIPED: Readonly<Record<Path, Partial<SpawnRequest>>> = {
  'no pipe': {},
  capture: { stdio: 'capture' },
  tee: { stdio: 'tee', readinessFd: 3 },
  'fd:3': { readinessFd: 3 },
};

function spawnOn(path: Path, command: SpawnRequest['command'], extra: Partial<SpawnRequest> = {}): SpawnResult {
  const result = sandbox.spawner.spawn({ name: 'test', command, env: {}, cwd: undefined, stdio: 'output', ...PIPED[path], ...extra });
  if (result.ok) {
    sandbox.track(result.child.pid);
    // Piped or not, the addon forked it and the reaper reaps it: libuv owns none.
    expect(nativeChildren.has(result.child.pid)).toBe(true);
    expect(libuvChildren.size).toBe(0);
    result.child.readinessPipe?.resume();
  }
  return result;
}

/** The descriptors this process has open, as /proc lists them. */
function openFds(): string[] {
  return readdirSync('/proc/self/fd');
}

const O_CLOEXEC = 0o2000000;

/** Descriptors past 2 this process has without close-on-exec (from whoever started the test): every child inherits them, whoever forks it. */
async function inheritedPastStdio(): Promise<Record<string, string>> {
  const inherited: Record<string, string> = {};
  for (const fd of openFds().filter((each) => Number(each) > 2)) {
    try {
      const flags = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').match(/^flags:\s*([0-7]+)/m)?.[1];
      if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) inherited[fd] = await readlink(`/proc/self/fd/${fd}`);
    } catch {
      // Closed meanwhile (the directory listing's own descriptor).
    }
  }
  return inherited;
}

/** The fields of /proc/PID/status that say how a process began, as `exec grep` in the child itself reads them. */
const STATUS_FIELDS = '^(NSpgid|NSsid|SigBlk|SigIgn):';

function statusFields(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => line.split(/:\s*/, 2) as [string, string]),
  );
}

describe('a child the addon forks', () => {
  it.each(PATHS)('on %s: every signal unblocked and at its default, a session of its own, stdin from /dev/null', async (path) => {
    // Meaningful only if the parent's state differs: Node ignores SIGPIPE (bit 13), and
    // every signal is blocked across the fork until the child clears its mask.
    const SIGPIPE_BIT = 1n << 12n;
    expect(BigInt(`0x${statusFields(readFileSync('/proc/self/status', 'utf8')).SigIgn}`) & SIGPIPE_BIT).toBe(SIGPIPE_BIT);
    const out = join(sandbox.workDir, 'status.txt');
    const probe = `readlink /proc/$$/fd/0 > "$OUT"; exec grep -E '${STATUS_FIELDS}' /proc/self/status >> "$OUT"`;
    const result = spawnOn(path, ['sh', '-c', probe], { env: { OUT: out } });
    if (!result.ok) throw new Error(result.status.reason);
    await expect(result.child.exited).resolves.toEqual({ kind: 'exited', code: 0 });
    const [stdin, ...fields] = (await readFile(out, 'utf8')).trim().split('\n');
    expect(stdin).toBe('/dev/null');
    const { pid } = result.child;
    expect(statusFields(fields.join('\n'))).toEqual({
      NSpgid: String(pid),
      NSsid: String(pid),
      SigBlk: '0000000000000000',
      SigIgn: '0000000000000000',
    });
  });

  it.each(['inherit', 'inherit-tee'] as const)("with stdio %s, has the supervisor's stdin", async (stdio) => {
    const out = join(sandbox.workDir, 'stdin.txt');
    const result = spawnOn('no pipe', ['sh', '-c', 'readlink /proc/$$/fd/0 > "$OUT"'], { env: { OUT: out }, stdio });
    if (!result.ok) throw new Error(result.status.reason);
    await result.child.exited;
    expect((await readFile(out, 'utf8')).trim()).toBe(await readlink('/proc/self/fd/0'));
  });

  it.each(PATHS)('on %s: gets a pipe at each piped descriptor and no other descriptor of ours', async (path) => {
    // Stopped by itself, sh holds only what it was born with: read from here, as /proc lists them.
    const result = spawnOn(path, ['sh', '-c', 'kill -STOP $$']);
    if (!result.ok) throw new Error(result.status.reason);
    const { pid } = result.child;
    await expect.poll(() => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]).toBe('T');
    const fds = Object.fromEntries(
      await Promise.all(readdirSync(`/proc/${pid}/fd`).map(async (fd) => [fd, await readlink(`/proc/${pid}/fd/${fd}`)])),
    );
    result.child.signal('SIGKILL');
    await expect(result.child.exited).resolves.toEqual({ kind: 'signaled', signal: 'SIGKILL' });
    await result.child.outputDone;
    const ours = (fd: number): Promise<string> => readlink(`/proc/self/fd/${fd}`);
    const pipe = expect.stringMatching(/^pipe:\[\d+\]$/);
    const outputPiped = path === 'capture' || path === 'tee';
    expect(fds).toEqual({
      ...(await inheritedPastStdio()),
      0: '/dev/null',
      1: outputPiped ? pipe : await ours(1),
      2: outputPiped ? pipe : await ours(2),
      ...(path === 'tee' || path === 'fd:3' ? { 3: pipe } : {}),
    });
    if (outputPiped) expect(fds[1]).not.toBe(fds[2]);
  });

  it('fails an exec with the same 126 or 127 and the same explanation piped or not, leaving no child and no pipe', async () => {
    const badInterpreter = join(sandbox.workDir, 'bad-interpreter.sh');
    await writeFile(badInterpreter, '#!/nonexistent/interpreter -x\nexit 0\n', { mode: 0o755 });
    // A copy of `true` whose PT_INTERP names a loader that does not exist (a glibc binary on a musl image).
    const original = readFileSync('/bin/true');
    const loader = original.toString('latin1').match(/\/lib[^\0]*ld-[^\0]+\.so[^\0]*/)?.[0];
    if (loader === undefined) throw new Error('no dynamic loader found in /bin/true');
    const foreignLibc = join(sandbox.workDir, 'foreign-libc');
    await copyFile('/bin/true', foreignLibc);
    await writeFile(foreignLibc, Buffer.from(original.toString('latin1').replace(loader, `/x${loader.slice(2)}`), 'latin1'));
    await chmod(foreignLibc, 0o755);
    // Executable by root (resolveProgram's check) but not by nobody, in a folder nobody cannot search.
    const rootOnly = join(sandbox.workDir, 'root-only');
    await copyFile('/bin/true', rootOnly);
    await chmod(rootOnly, 0o700);
    const nobody = { uid: 65534, gid: 65534, home: undefined };

    const cases: { readonly command: SpawnRequest['command']; readonly extra?: Partial<SpawnRequest>; readonly code: number }[] = [
      { command: [badInterpreter], code: 127 },
      { command: [foreignLibc], code: 127 },
      { command: [rootOnly], extra: { user: nobody }, code: 126 },
    ];
    const fdsBefore = openFds();
    for (const { command, extra, code } of cases) {
      const [unpiped, ...piped] = PATHS.map((path) => spawnOn(path, command, extra));
      expect(unpiped).toMatchObject({ ok: false, status: { kind: 'spawn-failed', code } });
      for (const each of piped) expect(each).toEqual(unpiped);
    }
    // Every pipe of a child that never ran is closed again.
    expect(openFds()).toEqual(fdsBefore);
    expect(nativeChildren.size).toBe(0);
    expect(libuvChildren.size).toBe(0);
  });

  it.each(PATHS)('on %s: runs an executable script without a #! line with /bin/sh, its arguments passed on', async (path) => {
    // glibc's execvp, which child_process uses, runs such a file with /bin/sh: entrypoint scripts rely on it.
    const script = join(sandbox.workDir, `no-shebang-${path}`);
    const out = join(sandbox.workDir, `no-shebang-${path}.txt`);
    await writeFile(script, 'printf "%s|" "$0" "$@" > "$OUT"\n', { mode: 0o755 });
    const result = spawnOn(path, [script, 'one', 'two words'], { env: { OUT: out } });
    if (!result.ok) throw new Error(result.status.reason);
    await expect(result.child.exited).resolves.toEqual({ kind: 'exited', code: 0 });
    expect(await readFile(out, 'utf8')).toBe(`${script}|one|two words|`);
  });

  it("fails an exec over the kernel's limit (E2BIG) with the same 126 and explanation piped or not, PID 1 unharmed", async () => {
    // One argument over the kernel's 128 KiB per string: execve says E2BIG, which node:child_process
    // threw at once instead of emitting 'error'; the supervisor must report it as the child's failure.
    const huge = 'x'.repeat(200 * 1024);
    const fdsBefore = openFds();
    const [unpiped, ...piped] = PATHS.map((path) => spawnOn(path, ['true', huge]));
    expect(unpiped).toMatchObject({ ok: false, status: { kind: 'spawn-failed', code: 126 } });
    for (const each of piped) expect(each).toEqual(unpiped);
    expect(openFds()).toEqual(fdsBefore);
    expect(nativeChildren.size).toBe(0);
    expect(libuvChildren.size).toBe(0);
  });
});

import { chmod, copyFile, readFile, readlink, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useProcessSandbox } from '../../test/support/process-sandbox.ts';
import type { SpawnRequest, SpawnResult } from './child.ts';
import { libuvChildren, nativeChildren } from './spawn.ts';

// The children the addon forks (stdio 'inherit' or 'output', no readiness fd)
// must begin as child_process's do, so that which path started a process
// never shows: each case runs on both, the libuv one forced by a readiness fd
// (a pipe only child_process makes).

const sandbox = useProcessSandbox('spawn-native-test-');

type Path = 'addon' | 'child_process';
const PATHS: readonly Path[] = ['addon', 'child_process'];

function spawnOn(path: Path, command: SpawnRequest['command'], extra: Partial<SpawnRequest> = {}): SpawnResult {
  const readiness = path === 'child_process' ? { readinessFd: 3 } : {};
  const result = sandbox.spawner.spawn({ name: 'test', command, env: {}, cwd: undefined, stdio: 'output', ...readiness, ...extra });
  if (result.ok) {
    sandbox.track(result.child.pid);
    // Only child_process's children are libuv's; the addon's are the reaper's.
    expect((path === 'addon' ? nativeChildren : libuvChildren).has(result.child.pid)).toBe(true);
    result.child.readinessPipe?.resume();
  }
  return result;
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

  it("with stdio inherit, has the supervisor's stdin", async () => {
    const out = join(sandbox.workDir, 'stdin.txt');
    const result = spawnOn('addon', ['sh', '-c', 'readlink /proc/$$/fd/0 > "$OUT"'], { env: { OUT: out }, stdio: 'inherit' });
    if (!result.ok) throw new Error(result.status.reason);
    await result.child.exited;
    expect((await readFile(out, 'utf8')).trim()).toBe(await readlink('/proc/self/fd/0'));
  });

  it('fails an exec with the same 126 or 127 and the same explanation as child_process, leaving no child', async () => {
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
    for (const { command, extra, code } of cases) {
      const [addon, libuv] = PATHS.map((path) => spawnOn(path, command, extra));
      expect(addon).toMatchObject({ ok: false, status: { kind: 'spawn-failed', code } });
      expect(addon).toEqual(libuv);
    }
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

  it('fails an exec that child_process throws for (E2BIG) with the same 126 and explanation on both paths, PID 1 unharmed', async () => {
    // One argument over the kernel's 128 KiB per string: execve says E2BIG, which node:child_process
    // throws at once instead of emitting 'error'; the supervisor must report it as the child's failure.
    const huge = 'x'.repeat(200 * 1024);
    const [addon, libuv] = PATHS.map((path) => spawnOn(path, ['true', huge]));
    expect(addon).toMatchObject({ ok: false, status: { kind: 'spawn-failed', code: 126 } });
    expect(addon).toEqual(libuv);
    expect(nativeChildren.size).toBe(0);
    expect(libuvChildren.size).toBe(0);
  });
});

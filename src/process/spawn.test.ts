import { chmod, copyFile, mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useProcessSandbox } from '../../test/support/process-sandbox.ts';
import type { Child, SpawnRequest, SpawnResult } from './child.ts';
import { isAlive } from '../os/proc-table.ts';
import { libuvChildren, nativeChildren } from './spawn.ts';

// Real processes only. Every pid a test starts (children and the grandchildren
// they report) is tracked; afterEach asserts none survived, then kills any that did.

const POLL_INTERVAL_MS = 10;
const WAIT_BOUND_MS = 5_000;

const sandbox = useProcessSandbox('spawn-test-');

function spawn(command: SpawnRequest['command'], extra: Partial<SpawnRequest> = {}): SpawnResult {
  const result = sandbox.spawner.spawn({ name: 'test', command, env: {}, cwd: undefined, stdio: 'output', ...extra });
  if (result.ok) sandbox.track(result.child.pid);
  return result;
}

function spawnChild(command: SpawnRequest['command'], extra: Partial<SpawnRequest> = {}): Child {
  const result = spawn(command, extra);
  if (!result.ok) throw new Error(`spawn failed: ${result.status.reason}`);
  return result.child;
}

describe('createSpawner', () => {
  it('reports the exit code', async () => {
    const child = spawnChild(['sh', '-c', 'exit 7']);
    await expect(child.exited).resolves.toEqual({ kind: 'exited', code: 7 });
  });

  it('reports the signal that killed the child', async () => {
    const selfKilled = spawnChild(['sh', '-c', 'kill -TERM $$']);
    await expect(selfKilled.exited).resolves.toEqual({ kind: 'signaled', signal: 'SIGTERM' });

    const sleeper = spawnChild(['sleep', '30']);
    expect(sleeper.signal('SIGKILL', 'process')).toBe(true);
    await expect(sleeper.exited).resolves.toEqual({ kind: 'signaled', signal: 'SIGKILL' });
  });

  it('fails with 127 naming the program and the PATH when it does not exist', () => {
    const result = spawn(['no-such-program-for-spawn-test'], { env: { PATH: '/nonexistent-a:/nonexistent-b' } });
    expect(result).toMatchObject({ ok: false, status: { kind: 'spawn-failed', code: 127 } });
    if (result.ok) return;
    expect(result.status.reason).toContain('no-such-program-for-spawn-test');
    expect(result.status.reason).toContain('/nonexistent-a:/nonexistent-b');
    expect(libuvChildren.size).toBe(0);
    expect(nativeChildren.size).toBe(0);
  });

  it('fails with 127 for a missing explicit path', () => {
    const result = spawn(['./missing.sh'], { cwd: sandbox.workDir });
    expect(result).toMatchObject({ ok: false, status: { kind: 'spawn-failed', code: 127 } });
    if (!result.ok) expect(result.status.reason).toContain(join(sandbox.workDir, 'missing.sh'));
  });

  it('fails with 126 for a file without the execute bit', async () => {
    const script = join(sandbox.workDir, 'not-executable.sh');
    await writeFile(script, '#!/bin/sh\nexit 0\n', { mode: 0o644 });
    const result = spawn([script]);
    expect(result).toMatchObject({ ok: false, status: { kind: 'spawn-failed', code: 126 } });
    if (!result.ok) expect(result.status.reason).toContain(script);
  });

  it('fails with 126 for a directory, given as a path or found in PATH', async () => {
    await mkdir(join(sandbox.workDir, 'bin', 'tool'), { recursive: true });
    expect(spawn([join(sandbox.workDir, 'bin')])).toMatchObject({ ok: false, status: { code: 126 } });
    const viaPath = spawn(['tool'], { env: { PATH: join(sandbox.workDir, 'bin') } });
    expect(viaPath).toMatchObject({ ok: false, status: { code: 126 } });
    if (!viaPath.ok) expect(viaPath.status.reason).toContain(join(sandbox.workDir, 'bin', 'tool'));
  });

  it('keeps searching PATH past a non-executable match, like execvp', async () => {
    await mkdir(join(sandbox.workDir, 'first'));
    await mkdir(join(sandbox.workDir, 'second'));
    await writeFile(join(sandbox.workDir, 'first', 'tool'), '#!/bin/sh\nexit 1\n', { mode: 0o644 });
    await writeFile(join(sandbox.workDir, 'second', 'tool'), '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    const child = spawnChild(['tool'], { env: { PATH: `${join(sandbox.workDir, 'first')}:${join(sandbox.workDir, 'second')}` } });
    await expect(child.exited).resolves.toEqual({ kind: 'exited', code: 3 });
  });

  it('fails with 126 when the working directory does not exist', () => {
    const missing = join(sandbox.workDir, 'gone');
    const result = spawn(['true'], { cwd: missing });
    expect(result).toMatchObject({ ok: false, status: { kind: 'spawn-failed', code: 126 } });
    if (!result.ok) expect(result.status.reason).toContain(`working directory ${missing} does not exist`);
  });

  it('fails with 127 naming the interpreter of a script whose #! program is missing', async () => {
    const script = join(sandbox.workDir, 'bad-interpreter.sh');
    await writeFile(script, '#!/nonexistent/interpreter -x\nexit 0\n', { mode: 0o755 });
    const result = spawn([script]);
    expect(result).toMatchObject({ ok: false, status: { kind: 'spawn-failed', code: 127 } });
    if (!result.ok) expect(result.status.reason).toContain('/nonexistent/interpreter');
  });

  it('fails with 127 naming the loader of a binary built for a libc the system lacks', async () => {
    // A copy of `true` whose PT_INTERP names a loader that does not exist: what a
    // glibc binary looks like on a musl image.
    const original = readFileSync('/bin/true');
    const loader = original.toString('latin1').match(/\/lib[^\0]*ld-[^\0]+\.so[^\0]*/)?.[0];
    if (loader === undefined) throw new Error('no dynamic loader found in /bin/true');
    const missingLoader = `/x${loader.slice(2)}`;
    const binary = join(sandbox.workDir, 'foreign-libc');
    await copyFile('/bin/true', binary);
    await writeFile(binary, Buffer.from(original.toString('latin1').replace(loader, missingLoader), 'latin1'));
    await chmod(binary, 0o755);
    const result = spawn([binary]);
    expect(result).toMatchObject({ ok: false, status: { kind: 'spawn-failed', code: 127 } });
    if (!result.ok) expect(result.status.reason).toContain(missingLoader);
  });

  it('applies env and cwd, and keeps argv[0] as written', async () => {
    const out = join(sandbox.workDir, 'out.txt');
    const child = spawnChild(['sh', '-c', 'pwd > "$OUT"; echo "$GREETING" >> "$OUT"; tr "\\0" " " < /proc/$$/cmdline >> "$OUT"'], {
      env: { OUT: out, GREETING: 'hello from env' },
      cwd: sandbox.workDir,
    });
    await expect(child.exited).resolves.toEqual({ kind: 'exited', code: 0 });
    const [pwd, greeting, cmdline] = (await readFile(out, 'utf8')).split('\n');
    expect(pwd).toBe(await realpath(sandbox.workDir));
    expect(greeting).toBe('hello from env');
    expect(cmdline?.startsWith('sh -c ')).toBe(true);
  });

  it('execs a name with a slash as written, as execvp does: ps shows `/bin/sh ./crash.sh`, with or without a #! line', async () => {
    for (const head of ['#!/bin/sh\n', '']) {
      const out = join(sandbox.workDir, 'cmdline.txt');
      await writeFile(join(sandbox.workDir, 'crash.sh'), `${head}tr "\\0" " " < /proc/$$/cmdline > "$OUT"\n`);
      await chmod(join(sandbox.workDir, 'crash.sh'), 0o755);
      const child = spawnChild(['./crash.sh', 'arg'], { env: { OUT: out }, cwd: sandbox.workDir });
      await expect(child.exited).resolves.toEqual({ kind: 'exited', code: 0 });
      expect(await readFile(out, 'utf8')).toBe('/bin/sh ./crash.sh arg ');
    }
  });

  it('inherits the supervisor environment under the request env', async () => {
    process.env.SPAWN_TEST_INHERITED = 'from-parent';
    try {
      const out = join(sandbox.workDir, 'env.txt');
      const child = spawnChild(['sh', '-c', 'echo "$SPAWN_TEST_INHERITED $OVERRIDE" > "$OUT"'], { env: { OUT: out, OVERRIDE: 'mine' } });
      await child.exited;
      expect((await readFile(out, 'utf8')).trim()).toBe('from-parent mine');
    } finally {
      delete process.env.SPAWN_TEST_INHERITED;
    }
  });

  it('reaches a grandchild when signaling the group', async () => {
    const pidFile = join(sandbox.workDir, 'grandchild.pid');
    const child = spawnChild(['sh', '-c', `sleep 300 & echo $! > "${pidFile}"; wait`]);
    const grandchild = Number(await waitForFile(pidFile));
    sandbox.track(grandchild);
    expect(isAlive(grandchild)).toBe(true);

    expect(child.signal('SIGTERM')).toBe(true);
    await expect(child.exited).resolves.toEqual({ kind: 'signaled', signal: 'SIGTERM' });
    await waitUntil(() => !isAlive(grandchild));
  });

  it('signals only the child with scope "process"', async () => {
    const pidFile = join(sandbox.workDir, 'grandchild.pid');
    const child = spawnChild(['sh', '-c', `sleep 300 & echo $! > "${pidFile}"; wait`]);
    const grandchild = Number(await waitForFile(pidFile));
    sandbox.track(grandchild);

    child.signal('SIGTERM', 'process');
    await child.exited;
    expect(isAlive(grandchild)).toBe(true);
    // The group outlives its leader while a member lives, so a group stop still reaches it.
    expect(child.signal('SIGKILL', 'group')).toBe(true);
    await waitUntil(() => !isAlive(grandchild));
  });

  it('returns false when signaling a child that is gone', async () => {
    const child = spawnChild(['true']);
    await child.exited;
    expect(child.signal('SIGTERM', 'group')).toBe(false);
    expect(child.signal('SIGTERM', 'process')).toBe(false);
  });

  it("owns the pid from spawn until the exit is reported, piped or not, in the one registry of the addon's children", async () => {
    // 'output' needs no pipe, 'capture' pipes its output: the addon forks both and the reaper reaps both.
    for (const stdio of ['output', 'capture'] as const) {
      const child = spawnChild(['sleep', '30'], { stdio });
      expect(nativeChildren.has(child.pid)).toBe(true);
      expect(libuvChildren.has(child.pid)).toBe(false);
      child.signal('SIGKILL');
      await child.exited;
      expect(nativeChildren.has(child.pid)).toBe(false);
    }
    expect(libuvChildren.size).toBe(0);
    expect(nativeChildren.size).toBe(0);
  });
});

async function waitUntil(predicate: () => boolean): Promise<void> {
  const giveUpAt = Date.now() + WAIT_BOUND_MS;
  while (!predicate()) {
    if (Date.now() > giveUpAt) throw new Error(`condition not met within ${WAIT_BOUND_MS}ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

async function waitForFile(path: string): Promise<string> {
  let content = '';
  await waitUntil(() => {
    try {
      content = readFileSync(path, 'utf8');
      return content.endsWith('\n');
    } catch {
      return false;
    }
  });
  return content.trim();
}

describe('piped output', () => {
  it("'capture' hands stdout and stderr chunks to onOutput", async () => {
    const chunks: string[] = [];
    const result = sandbox.spawner.spawn({
      name: 'capture',
      command: ['sh', '-c', 'echo out; echo err >&2'],
      env: {},
      cwd: undefined,
      stdio: 'capture',
      onOutput: (chunk, stream) => chunks.push(`${stream}:${chunk.toString()}`),
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(await result.child.exited).toEqual({ kind: 'exited', code: 0 });
    expect(chunks.sort()).toEqual(['stderr:err\n', 'stdout:out\n']);
  });
});

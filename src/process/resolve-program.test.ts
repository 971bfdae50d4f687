import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveProgram } from './resolve-program.ts';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'resolve-program-test-'));
  await mkdir(join(dir, 'bin'));
  await writeFile(join(dir, 'bin', 'tool'), '#!/bin/sh\n', { mode: 0o755 });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('resolveProgram', () => {
  it('resolves a name with a slash against the cwd, without searching PATH', () => {
    expect(resolveProgram('bin/tool', { path: '/nonexistent', cwd: dir })).toEqual({ ok: true, path: join(dir, 'bin', 'tool') });
    expect(resolveProgram('./tool', { path: join(dir, 'bin'), cwd: dir })).toMatchObject({ ok: false, code: 127 });
  });

  it('searches PATH in order', () => {
    expect(resolveProgram('tool', { path: `/nonexistent:${join(dir, 'bin')}`, cwd: '/' })).toEqual({
      ok: true,
      path: join(dir, 'bin', 'tool'),
    });
  });

  it('reads an empty PATH entry as the cwd, as POSIX says', () => {
    expect(resolveProgram('tool', { path: '/nonexistent:', cwd: join(dir, 'bin') })).toEqual({ ok: true, path: join(dir, 'bin', 'tool') });
  });

  it('searches the default path when PATH is unset, and says so', () => {
    expect(resolveProgram('sh', { path: undefined, cwd: '/' })).toMatchObject({ ok: true });
    expect(resolveProgram('no-such-tool', { path: undefined, cwd: '/' })).toEqual({
      ok: false,
      code: 127,
      reason: 'no-such-tool: command not found in PATH (PATH is unset, so the default /usr/bin:/bin)',
    });
  });

  it('treats a dangling symlink as missing', async () => {
    await symlink(join(dir, 'nowhere'), join(dir, 'bin', 'dangling'));
    expect(resolveProgram('dangling', { path: join(dir, 'bin'), cwd: '/' })).toMatchObject({ ok: false, code: 127 });
  });

  it('reports 126 for a cwd that is a file', () => {
    expect(resolveProgram('tool', { path: join(dir, 'bin'), cwd: join(dir, 'bin', 'tool') })).toEqual({
      ok: false,
      code: 126,
      reason: `cannot execute tool: working directory ${join(dir, 'bin', 'tool')} is not a directory`,
    });
  });

  it('reports 127 for an empty program name', () => {
    expect(resolveProgram('', { path: undefined, cwd: '/' })).toMatchObject({ ok: false, code: 127 });
  });
});

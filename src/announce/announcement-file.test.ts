import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnnouncer } from './announcer.ts';
import { MAX_ANNOUNCEMENT_BYTES, readAnnouncementFile } from './announcement-file.ts';
import { watchAnnouncement } from './watch-announcement.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-announce-'));
  dirs.push(dir);
  return dir;
}

describe('the announce file', () => {
  it('is written atomically, newest state last, and read back', async () => {
    const file = join(folder(), 'app');
    const announcer = createAnnouncer(file, (error) => {
      throw error;
    });
    announcer.update({ state: 'starting' });
    announcer.update({ state: 'ready' });
    announcer.update({ state: 'exited', exitCode: 3 });
    await announcer.flush();
    expect(await readAnnouncementFile(file)).toEqual({ state: 'exited', exitCode: 3 });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ state: 'exited', exitCode: 3, pid: process.pid });
    // No partial file is left beside it.
    expect(readdirSync(join(file, '..'))).toEqual(['app']);
  });

  it('is written into its folder as first reached, even when a neighbour swaps that folder for a symlink', async () => {
    const root = folder();
    mkdirSync(join(root, 'shared', 'sub'), { recursive: true });
    mkdirSync(join(root, 'elsewhere'));
    writeFileSync(join(root, 'elsewhere', 'state'), 'IMPORTANT\n', { mode: 0o600 });
    const announcer = createAnnouncer(join(root, 'shared', 'sub', 'state'), (error) => {
      throw error;
    });
    announcer.update({ state: 'starting' });
    await announcer.flush();
    // The neighbour moves the folder away and puts a symlink to another of its choosing in its place.
    renameSync(join(root, 'shared', 'sub'), join(root, 'shared', 'moved'));
    symlinkSync(join(root, 'elsewhere'), join(root, 'shared', 'sub'));
    announcer.update({ state: 'exited', exitCode: 0 });
    await announcer.flush();
    expect(readFileSync(join(root, 'elsewhere', 'state'), 'utf8')).toBe('IMPORTANT\n');
    expect(readdirSync(join(root, 'elsewhere'))).toEqual(['state']);
    expect(await readAnnouncementFile(join(root, 'shared', 'moved', 'state'))).toEqual({ state: 'exited', exitCode: 0 });
  });

  it('is not read through a symlink, from a FIFO (which would block), when oversized, or when not an announcement', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'real'), '{"state":"exited"}');
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    writeFileSync(join(dir, 'big'), `{"state":"exited","x":"${'a'.repeat(MAX_ANNOUNCEMENT_BYTES)}"}`);
    writeFileSync(join(dir, 'junk'), '{"state":"done"}');
    expect(await readAnnouncementFile(join(dir, 'real'))).toEqual({ state: 'exited' });
    for (const name of ['link', 'fifo', 'big', 'junk', 'missing']) expect(await readAnnouncementFile(join(dir, name))).toBeUndefined();
  });

  it('is watched: each change is seen, from a missing file to the last state', async () => {
    const file = join(folder(), 'proxy');
    const seen: (string | undefined)[] = [];
    const controller = new AbortController();
    const exited = new Promise<void>((resolve) =>
      watchAnnouncement(
        file,
        (announcement) => {
          seen.push(announcement?.state);
          if (announcement?.state === 'exited') resolve();
        },
        controller.signal,
      ),
    );
    const announcer = createAnnouncer(file, (error) => {
      throw error;
    });
    announcer.update({ state: 'ready' });
    await announcer.flush();
    announcer.update({ state: 'exited', exitCode: 0 });
    await exited;
    controller.abort();
    expect(seen[0]).toBeUndefined();
    expect(seen.at(-1)).toBe('exited');
  });
});

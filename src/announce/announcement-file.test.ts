import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Announcement } from '../plan/announced-state.ts';
import { createAnnouncer } from './announcer.ts';
import { MAX_ANNOUNCEMENT_BYTES, readAnnouncementFile } from './announcement-file.ts';
import { createAnnouncementSource, IGNORED_WARNING_INTERVAL_MS, IGNORED_WARNINGS_PER_INTERVAL } from './announcement-source.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
/** The files these tests write are this process's own. */
const OWN = { uid: process.geteuid?.() ?? 0 };
const NOBODY = 65_534;

async function readOwn(path: string): Promise<Announcement | undefined> {
  const read = await readAnnouncementFile(path, OWN);
  return read.kind === 'announced' ? read.announcement : undefined;
}

/** A source whose warnings are collected, on a clock the test moves. */
function sourceWithClock() {
  const warnings: Record<string, unknown>[] = [];
  let now = 0;
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line) as Record<string, unknown>) });
  const source = createAnnouncementSource(OWN, logger, () => now);
  return { source, warnings, advance: (ms: number) => (now += ms) };
}

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
    expect(await readOwn(file)).toEqual({ state: 'exited', exitCode: 3 });
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
    expect(await readOwn(join(root, 'shared', 'moved', 'state'))).toEqual({ state: 'exited', exitCode: 0 });
  });

  it('is not read through a symlink, from a FIFO (which would block), when oversized, or when not an announcement', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'real'), '{"state":"exited"}');
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    writeFileSync(join(dir, 'big'), `{"state":"exited","x":"${'a'.repeat(MAX_ANNOUNCEMENT_BYTES)}"}`);
    writeFileSync(join(dir, 'junk'), '{"state":"done"}');
    expect(await readOwn(join(dir, 'real'))).toEqual({ state: 'exited' });
    for (const name of ['link', 'fifo', 'big', 'junk', 'missing']) expect(await readOwn(join(dir, name))).toBeUndefined();
  });

  it('is watched: each change is seen, from a missing file to the last state', async () => {
    const file = join(folder(), 'proxy');
    const seen: (string | undefined)[] = [];
    const controller = new AbortController();
    const { source } = sourceWithClock();
    const exited = new Promise<void>((resolve) =>
      source.watch(
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

  it('counts only when the expected uid owns it and neither group nor others may write it, checked on the file read', async () => {
    const dir = folder();
    const own = join(dir, 'own');
    writeFileSync(own, '{"state":"exited","exitCode":0}', { mode: 0o644 });
    const foreign = join(dir, 'foreign');
    writeFileSync(foreign, '{"state":"exited","exitCode":0}', { mode: 0o644 });
    chownSync(foreign, NOBODY, NOBODY);
    const writable = join(dir, 'writable');
    writeFileSync(writable, '{"state":"exited","exitCode":0}');
    chmodSync(writable, 0o664);
    expect(await readAnnouncementFile(own, OWN)).toEqual({ kind: 'announced', announcement: { state: 'exited', exitCode: 0 } });
    expect(await readAnnouncementFile(foreign, OWN)).toEqual({ kind: 'ignored', uid: NOBODY, mode: 0o644, why: 'owner' });
    expect(await readAnnouncementFile(writable, OWN)).toEqual({ kind: 'ignored', uid: OWN.uid, mode: 0o664, why: 'writable' });
    // Another expected owner: then the foreign one is the one that counts.
    expect(await readAnnouncementFile(foreign, { uid: NOBODY })).toMatchObject({ kind: 'announced' });
    expect(await readAnnouncementFile(own, { uid: NOBODY })).toMatchObject({ kind: 'ignored', uid: OWN.uid });
  });

  it('warns about an ignored file a few times per interval, then counts the reads it did not tell into the next warning', async () => {
    const dir = folder();
    const file = join(dir, 'app');
    writeFileSync(file, '{"state":"exited","exitCode":0}');
    chownSync(file, NOBODY, NOBODY);
    const { source, warnings, advance } = sourceWithClock();
    for (let read = 0; read < 50; read += 1) expect(await source.read(file)).toBeUndefined();
    expect(warnings).toHaveLength(IGNORED_WARNINGS_PER_INTERVAL);
    expect(warnings[0]).toMatchObject({ event: 'announcement-ignored', file, uid: NOBODY, expectedUid: OWN.uid, repeats: 0 });
    expect(warnings[0]?.msg).toBe(`ignored what ${file} says: it is owned by uid ${NOBODY}, not uid ${OWN.uid} (--announcer-uid)`);
    advance(IGNORED_WARNING_INTERVAL_MS);
    expect(await source.read(file)).toBeUndefined();
    expect(warnings).toHaveLength(IGNORED_WARNINGS_PER_INTERVAL + 1);
    expect(warnings.at(-1)).toMatchObject({ repeats: 50 - IGNORED_WARNINGS_PER_INTERVAL });
    // The owner's own file, renamed into place, counts again.
    writeFileSync(`${file}.tmp`, '{"state":"ready"}', { mode: 0o644 });
    renameSync(`${file}.tmp`, file);
    expect(await source.read(file)).toEqual({ state: 'ready' });
    expect(warnings).toHaveLength(IGNORED_WARNINGS_PER_INTERVAL + 1);
  });
});

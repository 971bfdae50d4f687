import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, constants, linkSync, openSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from './support/harness.ts';
import { runSupervisor } from './support/supervisor.ts';
import { useTempDirs } from './support/temp-dirs.ts';

// The termination message: the `finished` line's text, written at the end to
// --termination-log (or /dev/termination-log, Kubernetes' default, when it is
// there), for Kubernetes to show as the container's last state. Real runs.

const { track, expectNothingLeft } = useHarness();
/** A neighbour sharing the folder: another uid, no capabilities, no groups. */
const AS_NEIGHBOUR = 'setpriv --reuid=65534 --regid=65534 --clear-groups';
/** Far above the few hundred milliseconds a run of `exit 3` takes; an exit blocked on a FIFO never comes. */
const EXIT_WITHIN_MS = 20_000;
const tempDir = useTempDirs('termination');

/**
 * A private mount namespace whose /dev is a fresh tmpfs holding the usual
 * device nodes (bound from the real /dev) and a /dev/termination-log bound to
 * $TERMINATION_FILE, as the kubelet mounts it; read-only when $TERMINATION_RO is
 * set. The machine's own /dev is never touched.
 */
const WITH_KUBERNETES_DEV = [
  'unshare',
  '--mount',
  '--propagation',
  'private',
  'sh',
  '-c',
  [
    'set -e',
    'mount -t tmpfs tmpfs /mnt && mkdir /mnt/dev && mount --rbind /dev /mnt/dev',
    'mount -t tmpfs -o mode=755 tmpfs /dev',
    'for node in null zero full random urandom tty; do touch "/dev/$node"; mount --bind "/mnt/dev/$node" "/dev/$node"; done',
    'mkdir /dev/shm /dev/pts && mount --rbind /mnt/dev/shm /dev/shm && mount --rbind /mnt/dev/pts /dev/pts',
    'ln -s /proc/self/fd /dev/fd',
    'touch /dev/termination-log && mount --bind "$TERMINATION_FILE" /dev/termination-log',
    'if [ -n "$TERMINATION_RO" ]; then mount -o remount,bind,ro /dev/termination-log; fi',
    'exec "$@"',
  ].join('\n'),
  'kubernetes-dev',
];

describe('/dev/termination-log, where Kubernetes mounts it', () => {
  it('holds the reason by default', async () => {
    const file = join(tempDir(), 'termination');
    writeFileSync(file, '');
    const run = track(await runSupervisor(['--', 'sh', '-c', 'exit 3'], { wrapper: WITH_KUBERNETES_DEV, env: { TERMINATION_FILE: file } }));
    expect(run.code).toBe(3);
    expect(readFileSync(file, 'utf8')).toBe('all processes stopped; exit code 3: the app exited with code 3\n');
    await expectNothingLeft(run);
  });

  it('read-only, or absent (every other test here), costs no warning and no exit code', async () => {
    const file = join(tempDir(), 'termination');
    writeFileSync(file, '');
    const run = track(
      await runSupervisor(['--', 'sh', '-c', 'exit 3'], {
        wrapper: WITH_KUBERNETES_DEV,
        env: { TERMINATION_FILE: file, TERMINATION_RO: '1' },
      }),
    );
    expect(run.code).toBe(3);
    expect(readFileSync(file, 'utf8')).toBe('');
    expect(run.logs.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);
    await expectNothingLeft(run);
  });
});

describe('--termination-log', () => {
  it('holds the reason the run ended with code 3, replacing what the file held', async () => {
    const file = join(tempDir(), 'termination');
    writeFileSync(file, `${'stale '.repeat(2_000)}\n`);
    const run = track(await runSupervisor(['--termination-log', file, '--', 'sh', '-c', 'exit 3']));
    expect(run.code).toBe(3);
    const finished = run.logs.find((line) => line.event === 'finished');
    expect(finished?.msg).toBe('all processes stopped; exit code 3: the app exited with code 3');
    expect(readFileSync(file, 'utf8')).toBe(`${finished?.msg}\n`);
    await expectNothingLeft(run);
  });

  it('names the process at fault, one line, control characters escaped, at most 4 KiB', async () => {
    const file = join(tempDir(), 'termination');
    const missing = `/no/such/\u001b[31m${'x'.repeat(5_000)}`;
    const run = track(await runSupervisor(['--termination-log', file, '--sidecar', `proxy=${missing}`, '--', 'true']));
    expect(run.code).toBe(127);
    const written = readFileSync(file);
    expect(written.length).toBeLessThanOrEqual(4_096);
    const text = written.toString();
    expect(text).toMatch(/^all processes stopped; exit code 127: sidecar proxy failed to start: \/no\/such\/\\x1b\[31mx+\.\.\.\n$/);
    expect([...text.slice(0, -1)].filter((char) => char.charCodeAt(0) < 0x20)).toEqual([]);
    await expectNothingLeft(run);
  });

  it('that cannot be written leaves the exit code alone and says why in a warning', async () => {
    const dir = tempDir();
    for (const path of [dir, join(dir, 'missing', 'termination')]) {
      const run = track(await runSupervisor(['--termination-log', path, '--', 'sh', '-c', 'exit 3']));
      expect(run.code).toBe(3);
      expect(run.logs.find((line) => line.event === 'termination-message-failed')).toMatchObject({ level: 'warn', path });
      await expectNothingLeft(run);
    }
  });

  it('given as SIDECAR_INIT_TERMINATION_LOG works the same; none writes nothing', async () => {
    const file = join(tempDir(), 'termination');
    const run = track(await runSupervisor(['--', 'sh', '-c', 'exit 4'], { env: { SIDECAR_INIT_TERMINATION_LOG: file } }));
    expect(run.code).toBe(4);
    expect(readFileSync(file, 'utf8')).toBe('all processes stopped; exit code 4: the app exited with code 4\n');
    rmSync(file);
    const none = track(await runSupervisor(['--termination-log', 'none', '--', 'true'], { env: { SIDECAR_INIT_TERMINATION_LOG: file } }));
    expect(none.code).toBe(0);
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
  });
});

describe('--termination-log through folders a neighbour can write', () => {
  /** A folder others can write (an emptyDir: 0777, no sticky bit), and a root-only folder holding a root-only file. */
  function sharedAndRootOnly() {
    const shared = tempDir();
    chmodSync(shared, 0o777);
    const rootOnly = tempDir();
    const secret = join(rootOnly, 'termination');
    writeFileSync(secret, "root's own\n", { mode: 0o600 });
    return { shared, rootOnly, secret };
  }

  /**
   * The app is the attack: it runs `script` as uid 65534, then exits 3. So the
   * neighbour acts after sidecar-init started and before it writes the
   * message at the end; nothing races, the exit waits for the script.
   */
  function appAfterNeighbour(script: string): string[] {
    return ['--', 'sh', '-c', `${AS_NEIGHBOUR} sh -c '${script}' && exit 3`];
  }

  it('a folder of the path swapped for a symlink to a root-only folder: nothing there is written, a warning names the folder, exit code intact', async () => {
    const { shared, rootOnly, secret } = sharedAndRootOnly();
    const folder = join(shared, 'logs');
    mkdirSync(folder);
    chmodSync(folder, 0o777);
    const path = join(folder, 'termination');
    const run = track(
      await runSupervisor(['--termination-log', path, ...appAfterNeighbour(`mv ${folder} ${folder}.moved && ln -s ${rootOnly} ${folder}`)]),
    );
    expect(run.code).toBe(3);
    // Before: root followed the symlinked folder and replaced the root-only file with the message.
    expect(readFileSync(secret, 'utf8')).toBe("root's own\n");
    expect(statSync(secret).mode & 0o7777).toBe(0o600);
    expect(run.logs.find((line) => line.event === 'termination-message-failed')).toMatchObject({
      level: 'warn',
      path,
      msg: `could not write the termination message: ${folder}: not a folder (a symlink is not followed)`,
    });
    await expectNothingLeft(run);
  });

  it('the file itself a symlink, or a hard link to a root-only file: neither is written, exit code intact', async () => {
    const { shared, secret } = sharedAndRootOnly();
    const symlinked = join(shared, 'symlinked');
    const run = track(await runSupervisor(['--termination-log', symlinked, ...appAfterNeighbour(`ln -s ${secret} ${symlinked}`)]));
    expect(run.code).toBe(3);
    expect(run.logs.find((line) => line.event === 'termination-message-failed')?.msg).toBe(
      `could not write the termination message: ${symlinked}: a symlink, which is not followed`,
    );
    // fs.protected_hardlinks stops uid 65534 from linking a file it cannot write; without it (some hosts), a link there
    // is theirs to make. Root makes it here.
    const linked = join(shared, 'linked');
    linkSync(secret, linked);
    const hard = track(await runSupervisor(['--termination-log', linked, '--', 'sh', '-c', 'exit 3']));
    expect(hard.code).toBe(3);
    // Before: the message replaced the root-only file's content through its second name.
    expect(readFileSync(secret, 'utf8')).toBe("root's own\n");
    expect(hard.logs.find((line) => line.event === 'termination-message-failed')?.msg).toBe(
      `could not write the termination message: ${linked}: has 2 hard links, and writing it would change the other names too`,
    );
    await expectNothingLeft(hard);
  });

  it.each([
    ['no reader', false],
    ['a reader that never reads', true],
  ])('a FIFO at the path, %s: the exit does not wait on it, a warning says why, exit code intact', async (_, withReader) => {
    const { shared } = sharedAndRootOnly();
    const path = join(shared, 'termination');
    const neighbour = spawnSync('sh', ['-c', `${AS_NEIGHBOUR} mkfifo ${path}`], { encoding: 'utf8' });
    expect(neighbour.status).toBe(0);
    // O_RDWR opens a FIFO at once on Linux: the test itself is the reader that never reads.
    const reader = withReader ? openSync(path, constants.O_RDWR | constants.O_NONBLOCK) : undefined;
    try {
      const startedAt = Date.now();
      const run = track(await runSupervisor(['--termination-log', path, '--', 'sh', '-c', 'exit 3']));
      expect(Date.now() - startedAt).toBeLessThan(EXIT_WITHIN_MS);
      expect(run.code).toBe(3);
      expect(run.logs.find((line) => line.event === 'termination-message-failed')).toMatchObject({
        level: 'warn',
        path,
        msg: `could not write the termination message: ${path}: ${withReader ? 'not a regular file' : 'a FIFO with no reader, or a socket'}`,
      });
    } finally {
      if (reader !== undefined) closeSync(reader);
    }
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useHarness } from './support/harness.ts';
import { runSupervisor } from './support/supervisor.ts';

// The termination message: the `finished` line's text, written at the end to
// --termination-log (or /dev/termination-log, Kubernetes' default, when it is
// there), for Kubernetes to show as the container's last state. Real runs.

const { track, expectNothingLeft } = useHarness();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-termination-'));
  dirs.push(dir);
  return dir;
}

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
    expect(readFileSync(file, 'utf8')).toBe('all processes stopped; exit code 3: app app exited with code 3\n');
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
    expect(finished?.msg).toBe('all processes stopped; exit code 3: app app exited with code 3');
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
    expect(readFileSync(file, 'utf8')).toBe('all processes stopped; exit code 4: app app exited with code 4\n');
    rmSync(file);
    const none = track(await runSupervisor(['--termination-log', 'none', '--', 'true'], { env: { SIDECAR_INIT_TERMINATION_LOG: file } }));
    expect(none.code).toBe(0);
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
  });
});

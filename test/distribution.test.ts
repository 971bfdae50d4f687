import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, BIN_COMMAND } from './support/supervisor.ts';

// What users get: bin/sidecar-init on whichever Node they have, and the single
// executable (when BIN is one: TEST_SIDECAR_INIT_BIN=dist/sidecar-init) on a machine
// with no Node at all.

const SCRIPT = fileURLToPath(new URL('../bin/sidecar-init', import.meta.url));
const { version: VERSION } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
const IS_EXECUTABLE = BIN_COMMAND.length === 1;
const BARE_ENV = { PATH: '/usr/bin:/bin' };

/** The first Node older than 22 on this machine (CI's Debian ships one), if any. */
function oldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/bin/nodejs', '/usr/local/bin/node']) {
    const version = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim();
    if (version !== undefined && version !== '' && Number(version.split('.')[0]) < 22) return candidate;
  }
  return undefined;
}

function runBare(args: readonly string[], env: Record<string, string> = BARE_ENV) {
  return spawnSync(BIN, args, { encoding: 'utf8', env, timeout: 20_000 });
}

describe('bin/sidecar-init', () => {
  const node = oldNode();
  it.skipIf(node === undefined)('on Node < 22 says which Node it found and that 22 is needed, in one line, exit 1', () => {
    const result = spawnSync(node!, [SCRIPT, '--', 'sh', '-c', 'echo started'], { encoding: 'utf8' });
    const found = spawnSync(node!, ['--version'], { encoding: 'utf8' }).stdout.trim();
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `sidecar-init: needs Node.js >= 22, found ${found} (${node}); upgrade Node, or use the single executable, which needs no Node\n`,
    );
  });
});

describe.skipIf(!IS_EXECUTABLE)('the single executable', () => {
  // On an image without any Node: test/pod/image.test.ts.
  it('runs with an empty environment and passes the exit code', () => {
    const result = runBare(['--log-level', 'warn', '--', 'sh', '-c', 'exit 3']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(3);
  });

  it('names its version, platform and runtime', () => {
    expect(runBare(['--version']).stdout).toBe(`${VERSION}\n`);
    const verbose = runBare(['--version', '--verbose']);
    expect(verbose.status).toBe(0);
    expect(verbose.stdout).toContain(`sidecar-init ${VERSION}\nplatform: linux-${process.arch} (glibc `);
    expect(verbose.stdout).toContain(`runtime: single executable (${BIN}) with Node v`);
  });

  it('has its SHA-256 beside it', () => {
    const checksum = `${BIN}.sha256`;
    expect(existsSync(checksum)).toBe(true);
    const digest = createHash('sha256').update(readFileSync(BIN)).digest('hex');
    expect(readFileSync(checksum, 'utf8')).toBe(`${digest}  ${basename(BIN)}\n`);
  });

  // Where its addon is written, how often, and with other users' files in the way: addon-placement.test.ts.
  it('refuses in one line, exit 1, starting nothing, when every place for its addon is noexec', () => {
    // A private mount namespace where /dev/shm, /tmp and /var/tmp are noexec
    // tmpfs, as /dev/shm is in Docker, podman and containerd. The executable's
    // folder is bound to /mnt first: a checkout under /tmp would be hidden.
    const script =
      'mount --bind "$(dirname "$0")" /mnt || exit 91; ' +
      'for dir in /dev/shm /tmp /var/tmp; do mount -t tmpfs -o noexec,size=1m tmpfs "$dir" || exit 90; done; ' +
      'exec env -i PATH=/usr/bin:/bin "/mnt/$(basename "$0")" -- sh -c "echo started"';
    const result = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, BIN], {
      encoding: 'utf8',
      timeout: 20_000,
      cwd: dirname(BIN),
    });
    expect(result.stdout).toBe('');
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'sidecar-init: cannot load the embedded native reaper addon: it needs a writable directory not mounted noexec ' +
        '(/dev/shm: mounted noexec; /tmp: mounted noexec; /var/tmp: mounted noexec); ' +
        'mount one (e.g. an emptyDir at /tmp) or set SIDECAR_INIT_NATIVE_DIR=DIR\n',
    );
  });
});

import { execFile } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGlibcBase, GLIBC_BASE } from './support/images.ts';

// The image users build from the Dockerfile and the executable they COPY out of
// it (the launcher and sidecar-init.runtime/ beside it), for real with podman. There is no registry: the Dockerfile's bases come
// from Debian packages (scripts/podman/base-image.sh) plus the Node this
// checkout runs on, passed as build arguments, as a mirror would be.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LABEL = 'io.github.sidecar-init.test-standin=true';
/** Debian without Node: where users COPY the executable (shared with the pod tests). */
const PLAIN_BASE = 'localhost/sidecar-init-test/base:bookworm';
const GCC_BASE = 'localhost/sidecar-init-test/gcc-base:bookworm';
/** Stands in for distroless/cc: glibc, libstdc++ and libgcc_s from Debian's packages, no shell. */
/** Stands in for node:24-bookworm-slim: Debian, a C compiler, this checkout's Node and npm. */
const NODE_BASE = 'localhost/sidecar-init-test/node-build:current';
const IMAGE = 'localhost/sidecar-init-test/sidecar-init:current';
const DEMO_IMAGE = 'localhost/sidecar-init-test/sidecar-init-demo:current';
const BUILD_STAGE = 'localhost/sidecar-init-test/sidecar-init-build:current';
const COPIED = 'localhost/sidecar-init-test/copied:current';
const BINARY = '/usr/local/bin/sidecar-init';
const ADDON = '/usr/local/bin/sidecar-init.node';
/** Beside the launcher (BINARY): the executable and the glibc runtime it starts with. */
const RUNTIME = '/usr/local/bin/sidecar-init.runtime';
const LOADER = `${RUNTIME}/${process.arch === 'arm64' ? 'ld-linux-aarch64.so.1' : 'ld-linux-x86-64.so.2'}`;
const RUNTIME_FILES = [
  LOADER.slice(RUNTIME.length + 1),
  'libc.so.6',
  'libdl.so.2',
  'libgcc_s.so.1',
  'libm.so.6',
  'libpthread.so.0',
  'libstdc++.so.6',
  'sidecar-init',
];
const MINUTE = 60_000;

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], timeoutMs = 2 * MINUTE): Promise<Result> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr: error !== null && typeof error.code !== 'number' ? `${stderr}${error.message}` : stderr });
    });
  });
}

async function ok(command: string, args: readonly string[], timeoutMs?: number): Promise<string> {
  const result = await run(command, args, timeoutMs);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.code}): ${result.stderr.trim()}`);
  return result.stdout;
}

async function withContext(build: (context: string) => Promise<void>): Promise<void> {
  const context = mkdtempSync(join(tmpdir(), 'sidecar-init-image-'));
  try {
    await build(context);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

/** npm as the registry publishes it (its dependencies bundled inside), the version this machine runs. */
async function packNpm(context: string): Promise<string> {
  const version = (await ok('npm', ['--version'])).trim();
  const tarball = (await ok('npm', ['pack', '--silent', `npm@${version}`, '--pack-destination', context], 5 * MINUTE)).trim();
  return tarball.split('\n').at(-1)!;
}

/** The CA bundle this machine trusts, for npm inside the build (a TLS-intercepting proxy may sit in between). */
function caBundle(): string {
  const configured = process.env.NODE_EXTRA_CA_CERTS;
  return configured !== undefined && existsSync(configured) ? configured : '/etc/ssl/certs/ca-certificates.crt';
}

async function buildImages(): Promise<void> {
  await ok(join(ROOT, 'scripts/podman/setup.sh'), [], 10 * MINUTE);
  await buildGlibcBase();
  await ok(join(ROOT, 'scripts/podman/base-image.sh'), [PLAIN_BASE, 'python3'], 15 * MINUTE);
  await ok(join(ROOT, 'scripts/podman/base-image.sh'), [GCC_BASE, 'gcc,libc6-dev,binutils'], 15 * MINUTE);
  await withContext(async (context) => {
    cpSync(process.execPath, join(context, 'node'));
    const npm = await packNpm(context);
    writeFileSync(
      join(context, 'Containerfile'),
      `FROM ${GCC_BASE}
LABEL ${LABEL}
COPY node /usr/local/bin/node
COPY ${npm} /tmp/npm.tgz
RUN mkdir -p /usr/local/lib/node_modules/npm \\
 && tar -xzf /tmp/npm.tgz -C /usr/local/lib/node_modules/npm --strip-components=1 \\
 && rm /tmp/npm.tgz \\
 && ln -sf ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
`,
    );
    await ok('podman', ['build', '--quiet', '--tag', NODE_BASE, context], 10 * MINUTE);
  });
  // The repository's Dockerfile as users build it; only the bases and the CA differ.
  const common = [
    '--label',
    LABEL,
    '--build-arg',
    `BUILD_IMAGE=${NODE_BASE}`,
    '--build-arg',
    `DEMO_IMAGE=${NODE_BASE}`,
    '--build-arg',
    `RUNTIME_IMAGE=${GLIBC_BASE}`,
    '--secret',
    `id=npm-ca,src=${caBundle()}`,
    '--file',
    join(ROOT, 'Dockerfile'),
  ];
  await ok('podman', ['build', '--quiet', ...common, '--target', 'build', '--tag', BUILD_STAGE, ROOT], 20 * MINUTE);
  await ok('podman', ['build', '--quiet', ...common, '--tag', IMAGE, ROOT], 20 * MINUTE);
  await ok('podman', ['build', '--quiet', ...common, '--target', 'demo', '--tag', DEMO_IMAGE, ROOT], 20 * MINUTE);
  await withContext(async (context) => {
    cpSync(join(ROOT, 'test/fixtures/make-orphans.sh'), join(context, 'make-orphans'));
    writeFileSync(
      join(context, 'Containerfile'),
      `FROM ${PLAIN_BASE}
LABEL ${LABEL}
COPY --from=${IMAGE} ${BINARY} ${BINARY}
COPY --from=${IMAGE} ${RUNTIME} ${RUNTIME}
COPY make-orphans /usr/local/bin/make-orphans
ENTRYPOINT ["${BINARY}"]
`,
    );
    await ok('podman', ['build', '--quiet', '--tag', COPIED, context], 5 * MINUTE);
  });
}

/** The files (not folders) of an image's filesystem, sorted: a container created (never started) and exported. */
async function filesOf(image: string): Promise<string[]> {
  const id = (await ok('podman', ['create', '--network', 'none', '--entrypoint', '/none', image])).trim();
  try {
    const listing = await new Promise<string>((resolve, reject) => {
      execFile('sh', ['-c', `podman export ${id} | tar -t`], { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, stdout) =>
        error === null ? resolve(stdout) : reject(error),
      );
    });
    return listing
      .split('\n')
      .map((line) => line.replace(/^\.\//, ''))
      .filter((line) => line !== '' && !line.endsWith('/'))
      .sort();
  } finally {
    await run('podman', ['rm', '--force', id]);
  }
}

function runIn(image: string, podmanArgs: readonly string[], args: readonly string[]): Promise<Result> {
  return run('podman', ['run', '--rm', '--network', 'none', ...podmanArgs, image, ...args]);
}

function logEvents(stderr: string): { event?: string; mode?: string; count?: number }[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { event?: string; mode?: string; count?: number });
}

describe('the image', () => {
  beforeAll(buildImages, 45 * MINUTE);

  it('is what install writes (launcher, addon, executable and its runtime) on the glibc base, nothing else, with the launcher as its entrypoint', async () => {
    const base = new Set(await filesOf(GLIBC_BASE));
    expect((await filesOf(IMAGE)).filter((file) => !base.has(file))).toEqual([
      BINARY.slice(1),
      ADDON.slice(1),
      ...RUNTIME_FILES.map((name) => `${RUNTIME.slice(1)}/${name}`),
      'usr/local/share/sidecar-init/LICENSE',
      'usr/local/share/sidecar-init/THIRD-PARTY-NOTICES.txt',
      'usr/local/share/sidecar-init/sidecar-init.sha256',
    ]);
    const config = JSON.parse(await ok('podman', ['image', 'inspect', '--format', '{{json .Config}}', IMAGE])) as {
      Entrypoint: string[];
      Cmd?: string[] | null;
    };
    expect(config.Entrypoint).toEqual([BINARY]);
    expect(config.Cmd ?? []).toEqual([]);
    // No shell in it: the app here is sidecar-init itself, refusing a missing folder with exit 2; the addon loads from
    // beside the executable, so a read-only root without any tmpfs is enough.
    const result = await runIn(
      IMAGE,
      ['--read-only', '--read-only-tmpfs=false'],
      ['--log-level', 'warn', '--', BINARY, 'install', '/missing'],
    );
    expect(result.stderr).toBe(
      'sidecar-init: cannot install into /missing: no such directory; give a directory that exists and this user can write\n',
    );
    expect(result.code).toBe(2);
  });

  it('installs sidecar-init into a volume, as an init container, and the copy runs in another image with nothing writable', async () => {
    const volume = mkdtempSync(join(tmpdir(), 'sidecar-init-volume-'));
    try {
      chmodSync(volume, 0o777);
      const installed = await runIn(IMAGE, ['--user', '65532', '-v', `${volume}:/sidecar-init`], ['install', '/sidecar-init']);
      expect(installed.stderr).toBe('');
      expect(installed.code).toBe(0);
      expect(installed.stdout).toMatch(
        /^installed \/sidecar-init\/sidecar-init \(\d+ bytes, sha256 [0-9a-f]{64}\)\ninstalled \/sidecar-init\/sidecar-init\.node /,
      );
      const result = await runIn(
        PLAIN_BASE,
        [
          '--read-only',
          '--read-only-tmpfs=false',
          '--user',
          '1000',
          '-v',
          `${volume}:/sidecar-init:ro`,
          '--entrypoint',
          '/sidecar-init/sidecar-init',
        ],
        ['--log-level', 'warn', '--', 'sh', '-c', 'exit 3'],
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(3);
    } finally {
      rmSync(volume, { recursive: true, force: true });
    }
  });

  it('has a demo target: the executable as its entrypoint and the demo as its command', async () => {
    const config = JSON.parse(await ok('podman', ['image', 'inspect', '--format', '{{json .Config}}', DEMO_IMAGE])) as {
      Entrypoint: string[];
      Cmd: string[];
    };
    expect(config.Entrypoint).toEqual([BINARY]);
    expect(config.Cmd).toEqual(['-c', 'examples/demo.yaml']);
    const demo = await runIn(DEMO_IMAGE, [], []);
    expect(demo.code).toBe(0);
    expect(logEvents(demo.stderr).map((line) => line.event)).toContain('finished');
  });

  it('is built with the base image’s Node: the Node the project pins for development is not installed', async () => {
    const stage = await runIn(BUILD_STAGE, ['--entrypoint', 'sh'], ['-c', 'ls /src/node_modules; node --version']);
    expect(stage.code).toBe(0);
    expect(stage.stdout).toContain('esbuild');
    expect(stage.stdout).not.toMatch(/node-linux-/);
  });

  it('copied into Debian without Node, passes the app’s exit code as PID 1', async () => {
    const noNode = await runIn(COPIED, ['--entrypoint', 'sh'], ['-c', 'command -v node || echo none']);
    expect(noNode.stdout.trim()).toBe('none');
    const result = await runIn(COPIED, [], ['--log-level', 'warn', '--', 'sh', '-c', 'exit 3']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(3);
  });

  it('copied into Debian without Node, reaps the orphans of its app as PID 1', async () => {
    // make-orphans' children are re-parented to PID 1 and exit; the app polls
    // /proc until no zombie is left (bounded), then reports what it saw.
    const script =
      'make-orphans 100; zombies() { grep -l "^State:[[:space:]]*Z" /proc/[0-9]*/status 2>/dev/null | wc -l; }; ' +
      'tries=0; while [ "$(zombies)" -gt 0 ] && [ "$tries" -lt 250 ]; do sleep 0.02; tries=$((tries + 1)); done; ' +
      'echo "zombies=$(zombies) pid1=$(readlink /proc/1/exe)"';
    const result = await runIn(COPIED, [], ['--log-level', 'info', '--', 'sh', '-c', script]);
    expect(result.code).toBe(0);
    // PID 1 is the launcher's exec of the carried loader, running the executable.
    expect(result.stdout.trim()).toBe(`zombies=0 pid1=${LOADER}`);
    const events = logEvents(result.stderr);
    expect(events.find((line) => line.event === 'starting')?.mode).toBe('pid1');
    const reaped = events.filter((line) => line.event === 'reaped').reduce((sum, line) => sum + (line.count ?? 0), 0);
    expect(reaped).toBeGreaterThan(0);
  });

  it('loads its addon on a read-only root filesystem as a non-root user, given an exec tmpfs', async () => {
    // podman mounts /dev/shm noexec (as Docker and containerd do), so the addon needs another tmpfs.
    const readOnly = await runIn(COPIED, ['--read-only', '--user', '1000'], ['--log-level', 'warn', '--', 'sh', '-c', 'exit 4']);
    expect(readOnly.stderr).toBe('');
    expect(readOnly.code).toBe(4);
    const ownDir = await runIn(
      COPIED,
      [
        '--read-only',
        '--read-only-tmpfs=false',
        '--tmpfs',
        '/run/sidecar-init:exec,size=1m',
        '--env',
        'SIDECAR_INIT_NATIVE_DIR=/run/sidecar-init',
        '--user',
        '1000',
      ],
      ['--log-level', 'warn', '--', 'sh', '-c', 'exit 5'],
    );
    expect(ownDir.stderr).toBe('');
    expect(ownDir.code).toBe(5);
  });

  it('refuses in one line, exit 1, starting nothing, when no directory can hold its addon', async () => {
    const result = await runIn(COPIED, ['--read-only', '--read-only-tmpfs=false'], ['--', 'sh', '-c', 'echo started']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^sidecar-init: cannot load the embedded native reaper addon: .*\/dev\/shm: mounted noexec.*SIDECAR_INIT_NATIVE_DIR=DIR\n$/,
    );
  });
});

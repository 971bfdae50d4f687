import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from './support/harness.ts';
import { BIN, BIN_COMMAND, FIXTURES, MARKER_VARIABLE, type StartOptions, startSupervisor } from './support/supervisor.ts';
import { useTempDirs } from './support/temp-dirs.ts';

// What `sidecar-init install DIR` writes starts in app images that have no
// glibc: a root holding only Debian's busybox-static (as distroless/static or
// an Alpine image without gcompat have no glibc), and one holding only musl's
// loader and a musl program. As PID 1 of its own PID namespace, chrooted into
// the root, DIR/sidecar-init runs the app, reaps its orphan, forwards SIGTERM
// and exits with the app's code; the app's environment is exactly the one
// sidecar-init was given, nothing of the glibc runtime sidecar-init carries.

const IS_EXECUTABLE = BIN_COMMAND.length === 1;
const INSTALL_DIR = '/opt/sidecar-init';
const EXIT_CODE = 7;
const APP_SOURCE = join(FIXTURES, 'any-image-app.c');
const MUSL_LOADER = '/lib/ld-musl-x86_64.so.1';
const BUSYBOX = '/bin/busybox';
const READY_WITHIN_MS = 60_000;
const SHELL_SETS = /^(SHLVL|PWD)=/;
const { track, expectNothingLeft } = useHarness();

const tempDir = useTempDirs('any-image');

function run(command: string, args: readonly string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.error?.message ?? result.stderr}`);
}

/** A root with the folders every container has (/proc, /dev mounted at the start), /events for the app's files, and sidecar-init installed. */
function makeRoot(): string {
  const root = tempDir();
  for (const dir of ['proc', 'dev', 'events', 'bin', 'lib', INSTALL_DIR.slice(1)]) mkdirSync(join(root, dir), { recursive: true });
  run(BIN, ['install', join(root, INSTALL_DIR)]);
  return root;
}

/** busybox-static, its sh, and the app built static: no loader at all in the root. */
function busyboxRoot(): string {
  const root = makeRoot();
  copyFileSync(BUSYBOX, join(root, 'bin/busybox'));
  symlinkSync('busybox', join(root, 'bin/sh'));
  run('gcc', ['-static', '-O2', '-o', join(root, 'bin/app'), APP_SOURCE]);
  return root;
}

/** musl's loader (which is its libc) and the app built with musl-gcc: nothing else. */
function muslRoot(): string {
  const root = makeRoot();
  copyFileSync(MUSL_LOADER, join(root, MUSL_LOADER));
  run('musl-gcc', ['-O2', '-o', join(root, 'bin/app'), APP_SOURCE]);
  return root;
}

/**
 * DIR/sidecar-init chrooted into `root` as PID 1 of a new PID namespace, with
 * the machine's /dev bound over the root's (as a container runtime gives one).
 * The wrapper is handed BIN first, which it drops: the launcher is what runs.
 */
function startInRoot(root: string, args: readonly string[]) {
  const script = [
    'set -e',
    'root=$1; shift 2',
    'mount --bind /dev "$root/dev"',
    `exec unshare --pid --fork --mount-proc="$root/proc" chroot "$root" ${INSTALL_DIR}/sidecar-init "$@"`,
  ].join('\n');
  const options: StartOptions = { wrapper: ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', script, 'in-root', root] };
  return track(startSupervisor(['--log-level', 'info', ...args], options));
}

/**
 * binfmt_misc's entry for arm64 ELF executables (as Debian's qemu-user-static
 * registers it), with F: the kernel opens qemu now, so it runs them inside the
 * chroot too, where there is no qemu.
 */
const QEMU_AARCH64_BINFMT =
  ':qemu-aarch64:M::\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00:' +
  '\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:/usr/bin/qemu-aarch64-static:F';

/**
 * The same for an arm64 root, under qemu-user as the executable's other CI
 * checks run it: in a user namespace of its own, where binfmt_misc is this
 * namespace's alone (Linux 6.7+), arm64 executables run through qemu, so the
 * launcher's execve of the carried loader, and the app's, work as on arm64;
 * nothing is registered on the machine itself. PID 1 is the launcher (sh execs
 * it), then the loader running the executable.
 */
function startInArm64Root(root: string, args: readonly string[]) {
  const script = [
    'set -e',
    'root=$1; shift 2',
    'mount -t binfmt_misc binfmt_misc "$root/proc/sys/fs/binfmt_misc"',
    `printf '%b' '${QEMU_AARCH64_BINFMT}' > "$root/proc/sys/fs/binfmt_misc/register"`,
    // /dev's own mounts are locked in a user namespace: bound with them.
    'mount --rbind /dev "$root/dev"',
    `exec chroot "$root" ${INSTALL_DIR}/sidecar-init "$@"`,
  ].join('\n');
  const wrapper = ['unshare', '--user', '--map-root-user', '--mount', '--propagation', 'private', '--pid', '--fork'];
  const options: StartOptions = { wrapper: [...wrapper, `--mount-proc=${root}/proc`, 'sh', '-c', script, 'in-root', root] };
  return track(startSupervisor(['--log-level', 'info', ...args], options));
}

/** PID 1 of the namespace as this machine numbers it: the one child of the wrapper (which became unshare --fork). */
function pid1Of(unshare: number): number {
  const [child, ...others] = readFileSync(`/proc/${unshare}/task/${unshare}/children`, 'utf8').trim().split(' ');
  if (child === undefined || child === '' || others.length > 0)
    throw new Error(`unshare ${unshare} has children "${child} ${others.join(' ')}"`);
  return Number(child);
}

async function waitFor(condition: () => boolean, withinMs: number, what: string): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`waited ${withinMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function environmentOf(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

async function playApp(root: string, app: readonly string[], start = startInRoot) {
  const supervisor = start(root, ['--', ...app]);
  const ready = join(root, 'events/ready');
  // The app writes it once its SIGTERM handler is in place; the bound is a liveness bound, far above the second it takes.
  await waitFor(() => existsSync(ready) || supervisor.process.exitCode !== null, READY_WITHIN_MS, `${ready} to be written`);
  if (supervisor.process.exitCode !== null)
    throw new Error(`exited ${supervisor.process.exitCode} before the app was ready: ${supervisor.stderr()}`);
  // unshare --fork ignores SIGTERM itself: the signal goes to PID 1, as a container runtime sends it.
  process.kill(pid1Of(supervisor.process.pid!), 'SIGTERM');
  const exit = await supervisor.exited;
  return { supervisor, exit };
}

/** The app ran, wrote its environment, got SIGTERM and its code is sidecar-init's; its orphan was reaped; nothing is left. */
async function expectAppPlayed(root: string, { supervisor, exit }: Awaited<ReturnType<typeof playApp>>) {
  expect(supervisor.stderr()).not.toMatch(/cannot start/);
  expect(exit.code).toBe(EXIT_CODE);
  expect(readFileSync(join(root, 'events/term'), 'utf8')).toBe('SIGTERM\n');
  expect(supervisor.logs.find((line) => line.event === 'starting')).toMatchObject({ mode: 'pid1' });
  const reaped = supervisor.logs.filter((line) => line.event === 'reaped').reduce((sum, line) => sum + Number(line.count), 0);
  expect(reaped).toBeGreaterThanOrEqual(1);
  // The app's environment is the one sidecar-init was given, exactly: no loader, no library path, no preload, no variable of the launcher.
  // (busybox sh, between sidecar-init and the app in one case, sets SHLVL and PWD itself.)
  const given = Object.entries({ ...process.env, [MARKER_VARIABLE]: supervisor.marker })
    .filter(([name]) => !SHELL_SETS.test(`${name}=`))
    .map(([name, value]) => `${name}=${value}`);
  const seen = environmentOf(readFileSync(join(root, 'events/env'), 'utf8')).filter((line) => !SHELL_SETS.test(line));
  expect(seen.filter((line) => /^(LD_|SIDECAR_INIT_LAUNCHER=)|sidecar-init\.runtime/.test(line))).toEqual([]);
  expect(seen.sort()).toEqual(given.sort());
  await expectNothingLeft(supervisor);
}

describe.skipIf(!IS_EXECUTABLE)('DIR/sidecar-init in an app image without glibc', () => {
  it.each([
    ['busybox-static only (sh execs a static app)', busyboxRoot, ['sh', '-c', `exec /bin/app /events ${EXIT_CODE}`]],
    ['musl only (a musl program as the app)', muslRoot, ['/bin/app', '/events', String(EXIT_CODE)]],
  ] as const)(
    '%s: runs the app as PID 1, reaps its orphan, forwards SIGTERM, exits with its code, and leaks nothing of its runtime',
    async (_name, makeRootFor, app) => {
      const root = makeRootFor();
      expect(existsSync(join(root, 'lib64/ld-linux-x86-64.so.2'))).toBe(false);
      await expectAppPlayed(root, await playApp(root, app));
    },
    120_000,
  );

  it('a launcher without its runtime folder says what is missing, exit 127, starting nothing', async () => {
    const root = busyboxRoot();
    rmSync(join(root, INSTALL_DIR, 'sidecar-init.runtime'), { recursive: true });
    const supervisor = startInRoot(root, ['--', 'sh', '-c', 'echo started > /events/started']);
    const exit = await supervisor.exited;
    expect(exit.code).toBe(127);
    expect(supervisor.stderr()).toBe(
      `sidecar-init: cannot start: the glibc runtime it carries is missing: ${INSTALL_DIR}/sidecar-init.runtime/ld-linux-x86-64.so.2; ` +
        'copy the sidecar-init.runtime folder beside sidecar-init (sidecar-init install DIR writes both)\n',
    );
    expect(existsSync(join(root, 'events/started'))).toBe(false);
  });
});

/** The arm64 executable (node scripts/build-binary.mjs --arch arm64), checked when named, as .ci/run does after building it. */
const ARM64_BIN = process.env.ARM64_SIDECAR_INIT_BIN;

describe.skipIf(ARM64_BIN === undefined || ARM64_BIN === '')(
  'arm64, under qemu-user: DIR/sidecar-init in an app image without glibc',
  () => {
    it('a root holding only a static arm64 app: runs it as PID 1, reaps its orphan, forwards SIGTERM, exits with its code, and leaks nothing', async () => {
      const root = tempDir();
      for (const dir of ['proc', 'dev', 'events', 'bin', INSTALL_DIR.slice(1)]) mkdirSync(join(root, dir), { recursive: true });
      // Installed by the arm64 executable itself (qemu-user reads its own file for /proc/self/exe).
      run('qemu-aarch64-static', ['-L', '/usr/aarch64-linux-gnu', ARM64_BIN!, 'install', join(root, INSTALL_DIR)]);
      run('aarch64-linux-gnu-gcc', ['-static', '-O2', '-o', join(root, 'bin/app'), APP_SOURCE]);
      expect(existsSync(join(root, INSTALL_DIR, 'sidecar-init.runtime/ld-linux-aarch64.so.1'))).toBe(true);
      await expectAppPlayed(root, await playApp(root, ['/bin/app', '/events', String(EXIT_CODE)], startInArm64Root));
    }, 180_000);
  },
);

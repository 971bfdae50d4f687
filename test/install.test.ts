import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, lstatSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { useHarness } from './support/harness.ts';
import { PRIVATE_FIXTURES, privateTmpWrapper } from './support/private-tmp.ts';
import { runStoppedAtSyscall, type StoppedRun } from './support/stopped-at-syscall.ts';
import { BIN, BIN_COMMAND, NODE, runSupervisor } from './support/supervisor.ts';
import { useTempDirs } from './support/temp-dirs.ts';

// `sidecar-init install DIR`: the single executable copies itself and its glibc
// runtime into DIR/sidecar-init.runtime/, its addon and the launcher that starts
// it into DIR, and the copy starts as PID 1 where nothing else is writable, as
// on a read-only root without an emptyDir at /tmp.

const IS_EXECUTABLE = BIN_COMMAND.length === 1;
const SCRIPT = fileURLToPath(new URL('../bin/sidecar-init', import.meta.url));
const NOBODY = 65534;
/** The glibc loader and libraries install writes into DIR/sidecar-init.runtime/ beside the executable, in the order it writes them. */
const RUNTIME_FILES = [
  process.arch === 'arm64' ? 'ld-linux-aarch64.so.1' : 'ld-linux-x86-64.so.2',
  'libc.so.6',
  'libm.so.6',
  'libdl.so.2',
  'libpthread.so.0',
  'libstdc++.so.6',
  'libgcc_s.so.1',
];
/** Files install writes, each with one fchmod: the addon, the runtime, the executable, the launcher last. */
const FILES_WRITTEN = RUNTIME_FILES.length + 3;
/** nobody, able to read the executable wherever the checkout is (CAP_DAC_READ_SEARCH grants no writing). */
const AS_NOBODY = [
  'setpriv',
  `--reuid=${NOBODY}`,
  `--regid=${NOBODY}`,
  '--clear-groups',
  '--inh-caps=+dac_read_search',
  '--ambient-caps=+dac_read_search',
];
/** A neighbour sharing the volume: another uid, no capabilities, no groups. */
const NEIGHBOUR = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];
const ORPHANS = 20;
/** Far above the 1-3 s an install takes on a loaded machine; an install blocked on a FIFO never ends at all. */
const INSTALL_ENDS_WITHIN_MS = 60_000;
const NEIGHBOUR_TEST_TIMEOUT_MS = INSTALL_ENDS_WITHIN_MS + 30_000;
const { track, events: createEvents, expectNothingLeft } = useHarness();

const tempDir = useTempDirs('install');
const stoppedRuns: StoppedRun[] = [];
afterEach(() => {
  for (const run of stoppedRuns.splice(0)) run.kill();
});

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function install(dir: string, wrapper: readonly string[] = []) {
  const [command = BIN, ...args] = [...wrapper, BIN, 'install', dir];
  return spawnSync(command, args, { encoding: 'utf8', timeout: 60_000 });
}

/** The copy installed in `dir` as PID 1 with /dev/shm, /tmp and /var/tmp read-only: its app makes orphans, counts zombies, exits 3. */
async function runInstalledCopy(dir: string) {
  const events = createEvents();
  const app = `${PRIVATE_FIXTURES}/make-orphans.sh ${ORPHANS} && ${PRIVATE_FIXTURES}/count-zombies.sh app; exit 3`;
  const run = track(
    await runSupervisor(['--log-level', 'info', '--', 'sh', '-c', app], {
      wrapper: privateTmpWrapper({ tmp: 'read-only', executable: join(dir, 'sidecar-init') }),
      env: { EVENTS: events.file },
    }),
  );
  return { run, events };
}

describe('install from the npm package', () => {
  it('says it needs the single executable, in one line, exit 2, writing nothing', () => {
    const dir = tempDir();
    const result = spawnSync(NODE, [SCRIPT, 'install', dir], { encoding: 'utf8' });
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^sidecar-init: install copies the single executable, [^\n]*\n$/);
    expect(result.status).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe.skipIf(!IS_EXECUTABLE)('sidecar-init install DIR', () => {
  it('as root: writes DIR/sidecar-init, DIR/sidecar-init.node and DIR/sidecar-init.runtime/, prints them, and the copy runs as PID 1 with nothing writable', async () => {
    const dir = tempDir();
    const result = install(dir);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const launcher = join(dir, 'sidecar-init');
    const executable = join(dir, 'sidecar-init.runtime', 'sidecar-init');
    const addon = join(dir, 'sidecar-init.node');
    // Exactly these (no partial one left), the executable a byte-exact copy, mode 0755; the launcher too.
    expect(readdirSync(dir).sort()).toEqual(['sidecar-init', 'sidecar-init.node', 'sidecar-init.runtime']);
    expect(readdirSync(join(dir, 'sidecar-init.runtime')).sort()).toEqual([...RUNTIME_FILES, 'sidecar-init'].sort());
    expect(sha256(executable)).toBe(sha256(BIN));
    expect(statSync(executable).mode & 0o7777).toBe(0o755);
    expect(statSync(launcher).mode & 0o7777).toBe(0o755);
    expect(statSync(addon).mode & 0o022).toBe(0);
    expect(statSync(join(dir, 'sidecar-init.runtime')).mode & 0o7777).toBe(0o755);
    // One line per file written, each naming its size and sha256: the entrypoint first, then its addon, the runtime, the executable.
    const written = [launcher, addon, ...RUNTIME_FILES.map((name) => join(dir, 'sidecar-init.runtime', name)), executable];
    expect(result.stdout).toBe(
      written.map((file) => `installed ${file} (${statSync(file).size} bytes, sha256 ${sha256(file)})\n`).join(''),
    );
    const { run, events } = await runInstalledCopy(dir);
    expect(run.code).toBe(3);
    expect(run.logs.find((line) => line.event === 'starting')).toMatchObject({ mode: 'pid1' });
    expect(events.sequence()).toEqual(['app zombies-0']);
    const reaped = run.logs.filter((line) => line.event === 'reaped').reduce((sum, line) => sum + Number(line.count), 0);
    expect(reaped).toBeGreaterThanOrEqual(ORPHANS);
    await expectNothingLeft(run);
  });

  it('as nobody into a folder nobody owns: the copy is nobody’s and root runs it as PID 1 with nothing writable', async () => {
    const dir = tempDir();
    chownSync(dir, NOBODY, NOBODY);
    const result = install(dir, AS_NOBODY);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(readdirSync(dir).map((name) => [name, statSync(join(dir, name)).uid])).toEqual(
      expect.arrayContaining([
        ['sidecar-init', NOBODY],
        ['sidecar-init.node', NOBODY],
        ['sidecar-init.runtime', NOBODY],
      ]),
    );
    const { run } = await runInstalledCopy(dir);
    expect(run.code).toBe(3);
    expect(run.logs.find((line) => line.event === 'starting')).toMatchObject({ mode: 'pid1' });
    await expectNothingLeft(run);
  });

  it('the installed copy, started by its launcher, installs the same files again: the executable, not the loader that runs it', () => {
    const first = tempDir();
    expect(install(first).status).toBe(0);
    const second = tempDir();
    const result = spawnSync(join(first, 'sidecar-init'), ['install', second], { encoding: 'utf8', timeout: 60_000 });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    for (const name of [
      'sidecar-init',
      'sidecar-init.node',
      ...RUNTIME_FILES.map((file) => `sidecar-init.runtime/${file}`),
      'sidecar-init.runtime/sidecar-init',
    ]) {
      expect(sha256(join(second, name)), name).toBe(sha256(join(first, name)));
    }
    expect(sha256(join(second, 'sidecar-init.runtime/sidecar-init'))).toBe(sha256(BIN));
  });

  it('refuses a DIR/sidecar-init.runtime another user made first, in one line, exit 2, leaving their folder as it is', () => {
    const dir = tempDir();
    chmodSync(dir, 0o777);
    const planted = spawnSync(NEIGHBOUR[0]!, [...NEIGHBOUR.slice(1), 'mkdir', '-m', '0777', join(dir, 'sidecar-init.runtime')], {
      encoding: 'utf8',
    });
    expect(planted.status).toBe(0);
    const result = install(dir);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      new RegExp(
        `^sidecar-init: cannot install into ${dir}: ${dir}/sidecar-init\\.runtime belongs to uid ${NOBODY}, not to this user \\(uid 0\\); [^\\n]*\\n$`,
      ),
    );
    expect(result.status).toBe(2);
    expect(readdirSync(join(dir, 'sidecar-init.runtime'))).toEqual([]);
    expect(
      readdirSync(dir)
        .filter((name) => name !== 'sidecar-init.node')
        .sort(),
    ).toEqual(['sidecar-init.runtime']);
  });

  it('refuses a folder it cannot write, or that does not exist, in one line, exit 2', () => {
    const rootOnly = tempDir();
    chmodSync(rootOnly, 0o755);
    const missing = join(tempDir(), 'missing');
    for (const [dir, wrapper, reason] of [
      [rootOnly, AS_NOBODY, 'permission denied'],
      [missing, [], 'no such directory'],
    ] as const) {
      const result = install(dir, wrapper);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(new RegExp(`^sidecar-init: cannot install into ${dir}: ${reason}; [^\\n]*\\n$`));
      expect(result.status).toBe(2);
    }
    expect(readdirSync(rootOnly)).toEqual([]);
  });

  it('never loads an addon beside it that is not its own: with nothing writable it refuses to start, naming the file', async () => {
    const dir = tempDir();
    expect(install(dir).status).toBe(0);
    const addon = join(dir, 'sidecar-init.node');
    const bytes = readFileSync(addon);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
    chmodSync(addon, 0o644);
    writeFileSync(addon, bytes);
    const { run, events } = await runInstalledCopy(dir);
    expect(run.code).toBe(1);
    expect(run.stderr()).toMatch(
      /^sidecar-init: cannot load the embedded native reaper addon: [^\n]*\/mnt\/bin\/sidecar-init\.node: not this build's addon \(content differs\); \/dev\/shm: read-only; \/tmp: read-only; \/var\/tmp: read-only\); [^\n]*\n$/,
    );
    expect(events.read()).toEqual([]);
  });
});

describe.skipIf(!IS_EXECUTABLE)('the launcher, DIR/sidecar-init', () => {
  /** An installed copy, shared by the launcher's tests (each changes only what it restores or a copy of its own). */
  function installed(): string {
    const dir = tempDir();
    const result = install(dir);
    expect(result.status, result.stderr).toBe(0);
    return dir;
  }

  /** DIR/sidecar-init with args and exactly env; what it printed and its exit code. */
  function launch(dir: string, args: readonly string[], env: NodeJS.ProcessEnv = { PATH: process.env.PATH }) {
    return spawnSync(join(dir, 'sidecar-init'), args, { encoding: 'utf8', env, timeout: 60_000, maxBuffer: 16 << 20 });
  }

  it('passes 4,100 arguments and 9,000 environment variables to the executable, which takes them', () => {
    const dir = installed();
    const args = Array.from({ length: 4_100 }, (_, index) => `a${index}`);
    const many = launch(dir, ['--', 'sh', '-c', 'echo "$#"', 'sh', ...args]);
    // Before: exit 127, "more arguments than 4096".
    expect(many.stderr).not.toContain('sidecar-init: cannot start');
    expect(many.status, many.stderr).toBe(0);
    expect(many.stdout).toBe('4100\n');
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
    for (let index = 0; index < 9_000; index++) env[`LAUNCHER_TEST_V${index}`] = String(index);
    const vars = launch(dir, ['--', 'sh', '-c', 'env | grep -c "^LAUNCHER_TEST_V"'], env);
    // Before: exit 127, "more environment variables than 8192".
    expect(vars.status, vars.stderr).toBe(0);
    expect(vars.stdout).toBe('9000\n');
  });

  it('says E2BIG as E2BIG when what it adds takes a command the kernel just took over the limit, exit 126', () => {
    const dir = installed();
    // Arguments of 100,000 bytes (under the kernel's 128 KiB per string) up to less than one more from the limit, then
    // one of `pad` bytes: the largest pad the kernel still execs DIR/sidecar-init with is what the launcher's own exec cannot take.
    const limit = Number(spawnSync('getconf', ['ARG_MAX'], { encoding: 'utf8' }).stdout);
    const chunk = 'x'.repeat(100_000);
    const chunks = Array.from({ length: Math.ceil((limit - 100_000) / 100_009) }, () => chunk);
    const attempt = (pad: number) => launch(dir, ['--no-such-flag', ...chunks, 'y'.repeat(pad)], {});
    let low = 0;
    let high = limit - chunks.length * 100_009;
    // The kernel refuses the first exec for high, takes it for low: bisect to the last pad it takes.
    expect(attempt(high).error).toMatchObject({ code: 'E2BIG' });
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (attempt(middle).error === undefined) low = middle;
      else high = middle;
    }
    const nearLimit = attempt(low);
    expect(nearLimit.stderr).toMatch(/^sidecar-init: cannot start: its arguments and environment are too long for the kernel \(E2BIG/);
    expect(nearLimit.stderr).not.toContain('reinstall');
    expect(nearLimit.status).toBe(126);
    // Well within the limit, the same command reaches the executable (which refuses the flag, exit 2).
    const within = attempt(low - 4096);
    expect(within.stderr).not.toContain('sidecar-init: cannot start');
    expect(within.status).toBe(2);
  });

  it.each([
    ['a library', ['libm.so.6'], 'libm.so.6'],
    ['two libraries', ['libc.so.6', 'libstdc++.so.6'], 'libc.so.6, libstdc++.so.6'],
    ['the executable', ['sidecar-init'], 'sidecar-init'],
  ])('says what its runtime folder lacks (%s) and how to fix it, exit 127, never falling back to the image’s /lib', (_, removed, named) => {
    const dir = installed();
    const runtime = join(dir, 'sidecar-init.runtime');
    for (const name of removed) rmSync(join(runtime, name));
    const result = launch(dir, ['version']);
    // Before: without libm the loader took the image's own and `version` ran; without the executable, the loader's raw error.
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `sidecar-init: cannot start: its runtime folder ${runtime}/ lacks ${named} (without them the loader would take the image's own libraries, or fail); reinstall with sidecar-init install DIR\n`,
    );
    expect(result.status).toBe(127);
  });
});

/**
 * A neighbour who can write DIR (uid 65534; an emptyDir is 0777 without the
 * sticky bit) moves install's partial file away and plants `plant` under its
 * name, at the moment that matters: the file is created and filled, not yet
 * renamed into place. Not a race: install is stopped right after its `nth`
 * fchmod (each partial file gets exactly one between being filled and being
 * renamed: libuv's copyfile made it before, install's own fchmod makes it now),
 * the neighbour acts while it is stopped, then it resumes. Whatever install
 * does by that name from then on, it does to the neighbour's entry.
 */
async function installWithNeighbour(nth: number, plant: 'symlink' | 'fifo', target: string) {
  const dir = tempDir();
  chmodSync(dir, 0o777);
  const run = runStoppedAtSyscall('fchmod', nth, [BIN, 'install', dir]);
  stoppedRuns.push(run);
  const pid = await run.stopped;
  const [partial, ...others] = readdirSync(dir).filter((name) => name.endsWith('.partial'));
  expect(others).toEqual([]);
  const swap = plant === 'symlink' ? 'mv "$1" "$1.moved" && ln -s "$2" "$1"' : 'mv "$1" "$1.moved" && mkfifo "$1"';
  const neighbour = spawnSync(NEIGHBOUR[0]!, [...NEIGHBOUR.slice(1), 'sh', '-c', swap, 'neighbour', join(dir, partial!), target], {
    encoding: 'utf8',
  });
  expect(neighbour.stderr).toBe('');
  expect(neighbour.status).toBe(0);
  process.kill(pid, 'SIGCONT');
  const resumedAt = Date.now();
  const bound = new Promise<'still running'>((resolve) => setTimeout(resolve, INSTALL_ENDS_WITHIN_MS, 'still running').unref());
  const result = await Promise.race([run.exited, bound]);
  if (result === 'still running')
    throw new Error(`install still running ${INSTALL_ENDS_WITHIN_MS} ms after the neighbour planted a ${plant}`);
  return { ...result, dir, endedAfterMs: Date.now() - resumedAt };
}

describe.skipIf(!IS_EXECUTABLE)('install into a folder a neighbour can write', () => {
  /** A root-only file (0600 in a 0700 folder) whose mode and content must stay as they are, and whose hash must never be told. */
  function rootOnlyFile(): { file: string; sha256: string } {
    const folder = tempDir();
    const file = join(folder, 'key');
    writeFileSync(file, 'root only\n', { mode: 0o600 });
    return { file, sha256: sha256(file) };
  }

  const NOT_WRITTEN = (dir: string, name: string) =>
    new RegExp(
      `^sidecar-init: cannot install into ${dir}: ${dir}/${name.replace('.', '\\.')} is not the file install wrote: another user renamed or replaced entries in ${dir} while install ran; [^\\n]*\\n$`,
    );

  it.each([
    [1, 'sidecar-init.node'],
    [FILES_WRITTEN, 'sidecar-init'],
  ])(
    'a symlink for the partial %i (%s): install touches nothing it points to, tells no hash of it, and fails saying so, exit 2',
    async (nth, name) => {
      const secret = rootOnlyFile();
      const result = await installWithNeighbour(nth, 'symlink', secret.file);
      // Before: root chmodded the file it pointed to 0755 and printed its sha256 (an oracle for any file root can read).
      expect(statSync(secret.file).mode & 0o7777).toBe(0o600);
      expect(sha256(secret.file)).toBe(secret.sha256);
      expect(`${result.stdout}${result.stderr}`).not.toContain(secret.sha256);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(NOT_WRITTEN(result.dir, name));
      expect(result.code).toBe(2);
      // The rename moved the neighbour's symlink into place; it is still theirs and still a symlink, never followed.
      expect(lstatSync(join(result.dir, name)).isSymbolicLink()).toBe(true);
    },
    NEIGHBOUR_TEST_TIMEOUT_MS,
  );

  it.each([
    [1, 'sidecar-init.node'],
    [FILES_WRITTEN, 'sidecar-init'],
  ])(
    'a FIFO for the partial %i (%s): install ends, exit 2, saying so',
    async (nth, name) => {
      const result = await installWithNeighbour(nth, 'fifo', '');
      // Before: install opened the FIFO to sync and hash it, and blocked there for good.
      expect(result.endedAfterMs).toBeLessThan(INSTALL_ENDS_WITHIN_MS);
      expect(result.stderr).toMatch(NOT_WRITTEN(result.dir, name));
      expect(result.code).toBe(2);
    },
    NEIGHBOUR_TEST_TIMEOUT_MS,
  );

  it(
    'a runtime folder renamed away while install writes into it, and one of the neighbour’s in its place: install claims nothing, places no entrypoint, exit 2',
    async () => {
      const dir = tempDir();
      chmodSync(dir, 0o777);
      // Stopped at the second fchmod: the addon's is the first, the loader's (in the runtime folder, made and opened by now) the second.
      const run = runStoppedAtSyscall('fchmod', 2, [BIN, 'install', dir]);
      stoppedRuns.push(run);
      const pid = await run.stopped;
      const runtime = join(dir, 'sidecar-init.runtime');
      const swap =
        'mv "$1" "$1.moved" && mkdir "$1" && printf "#!/bin/sh\necho neighbour\n" > "$1/sidecar-init" && chmod 755 "$1/sidecar-init"';
      const neighbour = spawnSync(NEIGHBOUR[0]!, [...NEIGHBOUR.slice(1), 'sh', '-c', swap, 'neighbour', runtime], { encoding: 'utf8' });
      expect(neighbour.stderr).toBe('');
      expect(neighbour.status).toBe(0);
      process.kill(pid, 'SIGCONT');
      const result = await run.exited;
      // Before: exit 0 and ten `installed …` lines, naming paths that held the neighbour's files.
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(
          `^sidecar-init: cannot install into ${dir}: ${runtime.replaceAll('.', '\\.')} is not the folder install wrote: another user renamed or replaced entries in ${dir} while install ran; [^\\n]*\\n$`,
        ),
      );
      expect(result.code).toBe(2);
      // No entrypoint that would start the neighbour's folder; theirs is as they left it.
      expect(readdirSync(dir).sort()).toEqual(['sidecar-init.node', 'sidecar-init.runtime', 'sidecar-init.runtime.moved']);
      expect(readdirSync(runtime)).toEqual(['sidecar-init']);
      expect(statSync(runtime).uid).toBe(NOBODY);
    },
    NEIGHBOUR_TEST_TIMEOUT_MS,
  );

  it('never names a partial file again after creating it, but to rename it; a placed file only to lstat it', () => {
    const dir = tempDir();
    const trace = join(tempDir(), 'trace');
    const result = spawnSync('strace', ['-f', '-o', trace, '-e', 'trace=%file,fchmod', BIN, 'install', dir], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    // DIR's entries, by DIR's path (as before) or through its descriptor, /proc/self/fd/N (as now).
    const inDir = new RegExp(
      `(${dir}|/proc/self/fd/\\d+)/(\\.sidecar-init\\.[0-9a-f]+\\.partial|sidecar-init(\\.node)?|ld-linux[^"/]*|lib[^"/]*)"`,
    );
    const calls = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((line) => inDir.test(line))
      .map((line) => line.replace(/^\d+ +/, '').replace(/\(.*/, ''))
      // lstat is statx or newfstatat with AT_SYMLINK_NOFOLLOW, or lstat, by kernel and libuv.
      .map((call) => (/^(statx|newfstatat|lstat)$/.test(call) ? 'lstat' : call));
    // Per file: create (O_EXCL|O_NOFOLLOW), rename, lstat; nothing else by a name in DIR: no chmod, no second open.
    expect(calls).toEqual(Array.from({ length: FILES_WRITTEN }, () => ['openat', 'rename', 'lstat']).flat());
    const creates = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((line) => line.includes('.partial') && line.includes('openat('));
    for (const line of creates) expect(line).toMatch(/O_CREAT\|O_EXCL\|O_NOFOLLOW/);
  });
});

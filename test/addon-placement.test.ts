import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useHarness } from './support/harness.ts';
import { PRIVATE_FIXTURES, privateTmpWrapper } from './support/private-tmp.ts';
import { BIN, BIN_COMMAND, runSupervisor } from './support/supervisor.ts';

// Where the single executable puts its embedded addon, against a hostile
// neighbour: another local user may leave anything in /dev/shm, /tmp and
// /var/tmp before sidecar-init starts, and must not be able to stop it or get
// anything loaded into it. Each run happens in a private mount namespace with
// fresh tmpfs there, so nothing touches the machine's own folders.

const IS_EXECUTABLE = BIN_COMMAND.length === 1;
const NOBODY = 65534;
const ORPHANS = 20;
const { track, events: createEvents, expectNothingLeft } = useHarness();

/**
 * The name earlier versions gave the addon (uid 0, size and FNV-1a of its
 * bytes): the same on every machine, so anyone could take it in advance.
 */
function formerAddonName(): string {
  const bytes = readFileSync(join(dirname(BIN), 'native', `reaper-linux-${process.arch}.node`));
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return `sidecar-init-0-${bytes.length.toString(16)}-${hash.toString(16).padStart(8, '0')}.node`;
}

describe.skipIf(!IS_EXECUTABLE)('the single executable’s addon, with another user’s files where it goes', () => {
  it('starts and reaps as PID 1 whatever another user left at the names it used or might use, and leaves their files alone', async () => {
    const events = createEvents();
    const former = formerAddonName();
    // As nobody, in each folder: a directory at the former name (which made
    // every start fail with EISDIR), a FIFO and a symlink at the other names
    // an extraction could think of, and a folder at mkdtemp's own template.
    const plant = [
      'for dir in /dev/shm /tmp /var/tmp; do',
      `  mkdir "$dir/${former}" "$dir/sidecar-init-XXXXXX"`,
      `  mkfifo "$dir/${former}.1.tmp" "$dir/sidecar-init.node"`,
      '  ln -s /etc/passwd "$dir/reaper.node"',
      '  ln -s /etc "$dir/sidecar-init-0"',
      'done',
    ].join('\n');
    const prepare = `setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups sh -ec '${plant}'`;
    const app = `${PRIVATE_FIXTURES}/make-orphans.sh ${ORPHANS} && ${PRIVATE_FIXTURES}/count-zombies.sh app; exit 3`;
    const run = track(
      await runSupervisor(['--log-level', 'info', '--', 'sh', '-c', app], {
        wrapper: privateTmpWrapper({ tmp: 'writable', prepare, listAfter: true }),
        env: { EVENTS: events.file },
      }),
    );
    expect(run.stderr()).not.toMatch(/cannot load|EISDIR/);
    expect(run.code).toBe(3);
    expect(run.logs.find((line) => line.event === 'starting')).toMatchObject({ mode: 'pid1' });
    expect(events.sequence()).toEqual(['app zombies-0']);
    const reaped = run.logs.filter((line) => line.event === 'reaped').reduce((sum, line) => sum + Number(line.count), 0);
    expect(reaped).toBeGreaterThanOrEqual(ORPHANS);
    // Afterwards each folder holds what nobody left there, untouched, and nothing of sidecar-init's.
    const planted = [former, `${former}.1.tmp`, 'reaper.node', 'sidecar-init-0', 'sidecar-init-XXXXXX', 'sidecar-init.node'];
    const after = readFileSync(join(events.dir, 'tmp-after'), 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    expect(after.sort()).toEqual(['/dev/shm', '/tmp', '/var/tmp'].flatMap((dir) => planted.map((name) => `${dir}/${name}`)).sort());
    await expectNothingLeft(run);
  });
});

describe.skipIf(!IS_EXECUTABLE || spawnSync('strace', ['-V']).error !== undefined)('the single executable writes its addon', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs BIN under strace; the files it created (open with O_CREAT), and what is left in the folder it was given. */
  function traceCreates(args: readonly string[]): { status: number | null; created: string[]; left: string[] } {
    const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-addon-'));
    dirs.push(dir);
    const trace = join(dir, 'trace');
    const nativeDir = join(dir, 'native');
    spawnSync('mkdir', [nativeDir]);
    const result = spawnSync('strace', ['-f', '-qq', '-e', 'trace=openat,open,creat', '-o', trace, BIN, ...args], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', SIDECAR_INIT_NATIVE_DIR: nativeDir },
      timeout: 30_000,
    });
    const created = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((line) => /O_CREAT/.test(line) && !/= -1 /.test(line))
      .map((line) => /"([^"]*)"/.exec(line)?.[1] ?? line);
    return { status: result.status, created, left: readdirSync(nativeDir) };
  }

  it('once per run, in a folder of its own that it removes before the app starts', () => {
    const run = traceCreates(['--log-level', 'warn', '--', 'sh', '-c', 'exit 3']);
    expect(run.status).toBe(3);
    expect(run.created).toEqual([expect.stringMatching(/\/native\/sidecar-init-[A-Za-z0-9]{6}\/reaper\.node$/)]);
    expect(run.left).toEqual([]);
  });

  it('never for a command that starts nothing, at exit or before', () => {
    for (const args of [['--version'], ['--no-such-flag'], ['plan', '--', 'true'], ['install']]) {
      const run = traceCreates(args);
      expect([args, run.created.filter((file) => file.includes('.node'))]).toEqual([args, []]);
      expect(run.left).toEqual([]);
    }
  });
});

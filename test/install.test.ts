import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { useHarness } from './support/harness.ts';
import { PRIVATE_FIXTURES, privateTmpWrapper } from './support/private-tmp.ts';
import { BIN, BIN_COMMAND, NODE, runSupervisor } from './support/supervisor.ts';

// `sidecar-init install DIR`: the single executable copies itself and its addon
// into DIR, and the copy starts as PID 1 where nothing else is writable, as on
// a read-only root without an emptyDir at /tmp.

const IS_EXECUTABLE = BIN_COMMAND.length === 1;
const SCRIPT = fileURLToPath(new URL('../bin/sidecar-init', import.meta.url));
const NOBODY = 65534;
/** nobody, able to read the executable wherever the checkout is (CAP_DAC_READ_SEARCH grants no writing). */
const AS_NOBODY = [
  'setpriv',
  `--reuid=${NOBODY}`,
  `--regid=${NOBODY}`,
  '--clear-groups',
  '--inh-caps=+dac_read_search',
  '--ambient-caps=+dac_read_search',
];
const ORPHANS = 20;
const { track, events: createEvents, expectNothingLeft } = useHarness();

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-install-'));
  dirs.push(dir);
  return dir;
}

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
  it('as root: writes DIR/sidecar-init and DIR/sidecar-init.node, prints them, and the copy runs as PID 1 with nothing writable', async () => {
    const dir = tempDir();
    const result = install(dir);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const executable = join(dir, 'sidecar-init');
    const addon = join(dir, 'sidecar-init.node');
    // Exactly the two files (no partial one left), the executable a byte-exact copy, mode 0755.
    expect(readdirSync(dir).sort()).toEqual(['sidecar-init', 'sidecar-init.node']);
    expect(sha256(executable)).toBe(sha256(BIN));
    expect(statSync(executable).mode & 0o7777).toBe(0o755);
    expect(statSync(addon).mode & 0o022).toBe(0);
    expect(result.stdout).toBe(
      `installed ${executable} (${statSync(BIN).size} bytes, sha256 ${sha256(BIN)})\n` +
        `installed ${addon} (${statSync(addon).size} bytes, sha256 ${sha256(addon)})\n`,
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
      ]),
    );
    const { run } = await runInstalledCopy(dir);
    expect(run.code).toBe(3);
    expect(run.logs.find((line) => line.event === 'starting')).toMatchObject({ mode: 'pid1' });
    await expectNothingLeft(run);
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

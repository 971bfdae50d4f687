import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHarness } from './support/harness.ts';
import { BIN, BIN_COMMAND, runSupervisor } from './support/supervisor.ts';
import { useTempDirs } from './support/temp-dirs.ts';
import { makeCertificate, startWebhook } from './support/webhook.ts';

// ps, top and pgrep read a process's name from /proc/PID/comm. Node names its
// main thread MainThread, and that was what they showed for sidecar-init; now
// it is sidecar-init, whichever file started it: the npm package's script (on
// Node), the single executable, or the launcher `sidecar-init install` writes
// (which execs the glibc loader), as PID 1 and not.

const IS_EXECUTABLE = BIN_COMMAND.length === 1;
const PID1 = ['unshare', '--pid', '--fork', '--mount-proc'];
const { track, events: createEvents, expectNothingLeft } = useHarness();
const tempDir = useTempDirs('process-name');

/**
 * The app reads its parent's (sidecar-init's) comm and what `pgrep -x
 * sidecar-init` finds, into files beside $EVENTS. Not as PID 1, pgrep sees the
 * whole machine (other runs of sidecar-init too): it looks only among the
 * children of this test's process, of which the supervisor is the one.
 */
function reportName(pgrepScope: string): string[] {
  const script = [
    'dir=$(dirname "$EVENTS")',
    'echo "$PPID" > "$dir/ppid"',
    'cat "/proc/$PPID/comm" > "$dir/comm"',
    `pgrep -x ${pgrepScope} sidecar-init > "$dir/pgrep" || true`,
  ].join('\n');
  return ['--', 'sh', '-c', script];
}

/** A startSupervisor wrapper that runs `executable` in place of the sidecar-init under test (its path, the wrapper's first argument, is dropped). */
function instead(executable: string): string[] {
  return ['sh', '-c', 'shift; exec "$0" "$@"', executable];
}

/** What the app saw, sidecar-init started as PID 1 or not: as the one under test, or through `launcher` in its place. */
async function nameSeen(asPid1: boolean, launcher?: string) {
  const events = createEvents();
  const scope = asPid1 ? '' : `-P ${process.pid}`;
  const wrapper = launcher === undefined ? [] : [...(asPid1 ? PID1 : []), ...instead(launcher)];
  const pid1 = asPid1 && launcher === undefined;
  const run = track(await runSupervisor(reportName(scope), { pid1, wrapper, env: { EVENTS: events.file } }));
  expect(run.code, run.stderr()).toBe(0);
  await expectNothingLeft(run);
  const read = (name: string) => readFileSync(join(events.dir, name), 'utf8');
  return { run, comm: read('comm'), pgrep: read('pgrep'), ppid: Number(read('ppid')) };
}

describe(`sidecar-init's name in ps, top and pgrep (${IS_EXECUTABLE ? 'the single executable' : 'the npm package, on Node'})`, () => {
  it('as PID 1: /proc/1/comm is sidecar-init, and pgrep -x sidecar-init finds PID 1', async () => {
    const { comm, pgrep, ppid } = await nameSeen(true);
    expect(ppid).toBe(1);
    // Before: MainThread, and pgrep found nothing.
    expect(comm).toBe('sidecar-init\n');
    expect(pgrep).toBe('1\n');
  });

  it('not as PID 1: its comm is sidecar-init, and pgrep -x sidecar-init finds its pid', async () => {
    const { run, comm, pgrep, ppid } = await nameSeen(false);
    expect(ppid).toBe(run.process.pid);
    expect(comm).toBe('sidecar-init\n');
    expect(pgrep).toBe(`${run.process.pid}\n`);
  });
});

describe('`sidecar-init webhook`, the Deployment that injects it', () => {
  it('is named sidecar-init too', async () => {
    const own = await startWebhook(makeCertificate(tempDir()), 'registry.example/sidecar-init:1');
    try {
      const pid = own.supervisor.process.pid;
      // Before: MainThread (only a run named itself).
      expect(readFileSync(`/proc/${pid}/comm`, 'utf8')).toBe('sidecar-init\n');
      expect(spawnSync('pgrep', ['-x', '-P', String(process.pid), 'sidecar-init'], { encoding: 'utf8' }).stdout).toBe(`${pid}\n`);
    } finally {
      own.supervisor.process.kill('SIGTERM');
      expect(await own.supervisor.exited).toEqual({ code: 0, signal: null });
    }
  });
});

describe.skipIf(!IS_EXECUTABLE)('started by the launcher `sidecar-init install` writes', () => {
  function installedLauncher(): string {
    const dir = tempDir();
    const result = spawnSync(BIN, ['install', dir], { encoding: 'utf8', timeout: 60_000 });
    expect(result.status, result.stderr).toBe(0);
    return join(dir, 'sidecar-init');
  }

  it('as PID 1: /proc/1/comm is sidecar-init (not the loader it execs), and pgrep -x sidecar-init finds PID 1', async () => {
    const { comm, pgrep } = await nameSeen(true, installedLauncher());
    expect(comm).toBe('sidecar-init\n');
    expect(pgrep).toBe('1\n');
  });

  it('not as PID 1: its comm is sidecar-init, and pgrep -x sidecar-init finds its pid', async () => {
    const { run, comm, pgrep } = await nameSeen(false, installedLauncher());
    expect(comm).toBe('sidecar-init\n');
    expect(pgrep).toBe(`${run.process.pid}\n`);
  });
});

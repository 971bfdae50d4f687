import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { useHarness } from './support/harness.ts';
import { FIXTURES, startSupervisor } from './support/supervisor.ts';

// Every run has its long-lived children forked by the addon, piped output and
// fd:N pipes included, so it never loads node:child_process, nor the
// dgram and cluster modules that come with it, each compiled from source at
// every start under --jitless; nor does its control socket, which listens
// through the addon (node:net's listen would load cluster, and with it
// child_process). Seen in the process itself: a test-only hook
// (fixtures/record-builtins.mjs) writes process.moduleLoadList at the exit.

const { track } = useHarness();
const HOOK = pathToFileURL(`${FIXTURES}record-builtins.mjs`).href;
const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-builtins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SPAWNING_MODULES = [
  'NativeModule child_process',
  'NativeModule internal/child_process',
  'NativeModule dgram',
  'NativeModule cluster',
];

async function builtinsOf(name: string, args: readonly string[], pid1 = false): Promise<string[]> {
  const file = join(dir, `${name}.txt`);
  const run = track(startSupervisor(args, { pid1, nodeFlags: ['--import', HOOK], env: { BUILTINS_FILE: file } }));
  expect((await run.exited).code).toBe(0);
  return readFileSync(file, 'utf8').trim().split('\n');
}

describe('the built-in modules a run loads', () => {
  it.each([false, true])('a plain run (pid1: %s), a sidecar, the app and the control socket, never loads child_process', async (pid1) => {
    // A control socket of its own: the default one may be another test's run's.
    const control = join(dir, `control-${pid1}.sock`);
    const loaded = await builtinsOf(`plain-${pid1}`, ['--control', control, '--sidecar', 'helper=sleep 30', '--', 'true'], pid1);
    expect(loaded).toContain('NativeModule net');
    expect(loaded).toContain('NativeModule fs');
    for (const module of SPAWNING_MODULES) expect(loaded).not.toContain(module);
  });

  it.each([false, true])(
    'a run whose output passes through sidecar-init (prefix, pid1: %s) pipes it through the addon, never loading child_process',
    async (pid1) => {
      const loaded = await builtinsOf(`prefix-${pid1}`, ['--control', 'none', '--output', 'prefix', '--', 'true'], pid1);
      // The pipes' read ends are sockets on the loop (src/process/spawn-piped.ts).
      expect(loaded).toContain('NativeModule net');
      for (const module of SPAWNING_MODULES) expect(loaded).not.toContain(module);
    },
  );
});

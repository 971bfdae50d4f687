import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shellJoin } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { FIXTURES, NODE, startSupervisor } from './support/supervisor.ts';

// Every run has its long-lived children forked by the addon, piped output and
// fd:N pipes included, so it never loads node:child_process, nor the
// dgram and cluster modules that come with it, each compiled from source at
// every start under --jitless; nor does its control socket, which listens
// through the addon (node:net's listen would load cluster, and with it
// child_process). Nor does a plain run (every process's output inherited), wherever its log goes (a pipe, a file, a terminal),
// node:net, node:stream, node:fs/promises, readline or timers/promises: the log
// is written with node:fs and the addon's writable watch (output/queued-sink.ts),
// the control socket loads node:net at its first connection, the termination
// message uses node:fs's callbacks. Seen in the process itself: a test-only
// hook (fixtures/record-builtins.cjs) writes process.moduleLoadList at the
// exit, in a Node that runs the bundle as the executable does
// (fixtures/run-bundle.cjs: CommonJS, so Node's ESM loader, which loads
// streams and fs/promises itself, stays out of the count).

const { track } = useHarness();
const HOOK = `${FIXTURES}record-builtins.cjs`;
const RUN_BUNDLE = `${FIXTURES}run-bundle.cjs`;
const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-builtins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SPAWNING_MODULES = [
  'NativeModule child_process',
  'NativeModule internal/child_process',
  'NativeModule dgram',
  'NativeModule cluster',
];

/** What a plain run never needs, whatever its log is written to. */
const STREAM_MODULES = [
  'NativeModule net',
  'NativeModule stream',
  'NativeModule internal/streams/writable',
  'NativeModule fs/promises',
  'NativeModule internal/fs/promises',
  'NativeModule internal/fs/streams',
  'NativeModule internal/readline/interface',
  'NativeModule timers/promises',
  'NativeModule tty',
];

/** Where the supervisor's stderr (its log) goes. */
type LogTarget = 'pipe' | 'file' | 'terminal';

async function builtinsOf(name: string, args: readonly string[], options: { pid1?: boolean; log?: LogTarget } = {}): Promise<string[]> {
  const file = join(dir, `${name}.txt`);
  const log = join(dir, `${name}.log`);
  const env: Record<string, string> = { BUILTINS_FILE: file, LOG_FILE: log };
  // The command is the shell's own words for `script` (util-linux), which runs it on a new pseudo-terminal.
  const wrappers: Record<LogTarget, string[]> = {
    pipe: [],
    file: ['sh', '-c', 'exec "$@" 2>"$LOG_FILE"', 'sh'],
    terminal: ['sh', '-c', 'exec script -qefc "$RUN_ON_TERMINAL" /dev/null', 'sh'],
  };
  const target = options.log ?? 'pipe';
  if (target === 'terminal') env.RUN_ON_TERMINAL = shellJoin(NODE, '-r', HOOK, RUN_BUNDLE, ...args);
  const run = track(
    startSupervisor(args, { pid1: options.pid1, wrapper: wrappers[target], nodeFlags: ['-r', HOOK], script: RUN_BUNDLE, env }),
  );
  expect((await run.exited).code).toBe(0);
  if (target === 'file') expect(readFileSync(log, 'utf8')).toContain('"event":"exit"');
  // Text lines, as on any terminal: the log saw one.
  if (target === 'terminal') expect(run.stdout()).toMatch(/ INFO +sidecar-init exiting with code 0/);
  return readFileSync(file, 'utf8').trim().split('\n');
}

describe('the built-in modules a run loads', () => {
  it.each([false, true])(
    'a plain run (pid1: %s), a sidecar, the app and the control socket, never loads child_process, net or streams',
    async (pid1) => {
      // A control socket of its own: the default one may be another test's run's.
      const control = join(dir, `control-${pid1}.sock`);
      const loaded = await builtinsOf(`plain-${pid1}`, ['--control', control, '--sidecar', 'helper=sleep 30', '--', 'true'], { pid1 });
      expect(loaded).toContain('NativeModule fs');
      for (const module of [...SPAWNING_MODULES, ...STREAM_MODULES]) expect(loaded).not.toContain(module);
    },
  );

  it('a plain run with the default control socket, opened or found in use by another run, loads none of them either', async () => {
    const loaded = await builtinsOf('default-control', ['--sidecar', 'helper=sleep 30', '--', 'true']);
    for (const module of [...SPAWNING_MODULES, ...STREAM_MODULES]) expect(loaded).not.toContain(module);
  });

  it.each(['file', 'terminal'] as const)('a plain run whose log goes to a %s loads none of them either', async (log) => {
    const loaded = await builtinsOf(`log-${log}`, ['--control', 'none', '--', 'true'], { log });
    for (const module of [...SPAWNING_MODULES, ...STREAM_MODULES]) expect(loaded).not.toContain(module);
  });

  it.each([false, true])(
    'a run whose output passes through sidecar-init (prefix, pid1: %s) pipes it through the addon, never loading child_process',
    async (pid1) => {
      const loaded = await builtinsOf(`prefix-${pid1}`, ['--control', 'none', '--output', 'prefix', '--', 'true'], { pid1 });
      // The pipes' read ends are sockets on the loop (src/process/spawn-piped.ts).
      expect(loaded).toContain('NativeModule net');
      for (const module of SPAWNING_MODULES) expect(loaded).not.toContain(module);
    },
  );
});

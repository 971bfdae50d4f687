import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADDON_FUNCTIONS } from './addon.ts';
import { NATIVE_ADDON_ENV, NativeAddonError, decodeWaitStatus, loadNativeProcessApi } from './native.ts';

describe('decodeWaitStatus', () => {
  test('a normal exit carries its code', () => {
    expect(decodeWaitStatus(0)).toEqual({ kind: 'exited', code: 0 });
    expect(decodeWaitStatus(3 << 8)).toEqual({ kind: 'exited', code: 3 });
    expect(decodeWaitStatus(255 << 8)).toEqual({ kind: 'exited', code: 255 });
  });

  test('a signal death carries Node’s name for it, core dump or not', () => {
    expect(decodeWaitStatus(9)).toEqual({ kind: 'signaled', signal: 'SIGKILL' });
    expect(decodeWaitStatus(15)).toEqual({ kind: 'signaled', signal: 'SIGTERM' });
    expect(decodeWaitStatus(0x80 | 6)).toEqual({ kind: 'signaled', signal: 'SIGABRT' });
  });

  test('a real-time signal, which Node cannot name, reads as a shell would report it', () => {
    expect(decodeWaitStatus(40)).toEqual({ kind: 'exited', code: 168 });
  });

  test('stopped and continued are not exits', () => {
    expect(() => decodeWaitStatus((19 << 8) | 0x7f)).toThrow(RangeError);
    expect(() => decodeWaitStatus(0xffff)).toThrow(RangeError);
  });
});

describe('loadNativeProcessApi', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sidecar-init-native-'));
    const root = fileURLToPath(new URL('../..', import.meta.url));
    execFileSync(join(root, 'node_modules/.bin/node'), [join(root, 'scripts/build-native.mjs'), join(dir, 'reaper.node')], {
      stdio: 'pipe',
    });
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('a missing override says how to build the addon', () => {
    const load = () => loadNativeProcessApi({ [NATIVE_ADDON_ENV]: join(dir, 'missing.node') });
    expect(load).toThrow(NativeAddonError);
    expect(load).toThrow(/npm run build/);
  });

  test('a file that is not an addon fails to load with the fix', () => {
    const bogus = join(dir, 'bogus.node');
    writeFileSync(bogus, 'not a shared object');
    expect(() => loadNativeProcessApi({ [NATIVE_ADDON_ENV]: bogus })).toThrow(/could not load .*npm run build/);
  });

  test('the built addon defines exactly the functions of ADDON_FUNCTIONS, in the order of addon.c and of each part', () => {
    // dlopen'd here, not through the loader, which would refuse an addon that lacks one.
    const addon = { exports: {} as Record<string, unknown> };
    process.dlopen(addon, join(dir, 'reaper.node'));
    expect(Object.keys(addon.exports)).toEqual(Object.values(ADDON_FUNCTIONS).flat());
  });

  test('the built addon waits only on the PID it is given', () => {
    const native = loadNativeProcessApi({ [NATIVE_ADDON_ENV]: join(dir, 'reaper.node') });
    expect(native.reapPid(process.ppid)).toBeUndefined(); // not our child: ECHILD
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(() => native.reapPid(pid)).toThrow(RangeError);
  });

  test('loading the addon changes no signal disposition, mask or handler; the terminal mode ignores SIGTTOU and SIGTTIN when it asks', () => {
    // In a process of its own: the test's process has loaded the addon already.
    const script = [
      `const fs = require('node:fs');`,
      `const read = () => Object.fromEntries(fs.readFileSync('/proc/self/status', 'latin1').split('\\n').filter((line) => /^Sig(Ign|Cgt|Blk):/.test(line)).map((line) => line.split(/:\\s+/)));`,
      `const before = read();`,
      `const addon = { exports: {} }; process.dlopen(addon, ${JSON.stringify(join(dir, 'reaper.node'))});`,
      `const loaded = read();`,
      `addon.exports.ignoreTerminalStops();`,
      `console.log(JSON.stringify({ before, loaded, asked: read() }));`,
    ].join('\n');
    const { before, loaded, asked } = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as Record<
      'before' | 'loaded' | 'asked',
      Record<'SigIgn' | 'SigCgt' | 'SigBlk', string>
    >;
    expect(Object.keys(before)).toEqual(['SigBlk', 'SigIgn', 'SigCgt']);
    expect(loaded).toEqual(before);
    // The masks are hexadecimal, bit N-1 for signal N: SIGTTIN 21, SIGTTOU 22.
    const ttinAndTtou = (1n << 20n) | (1n << 21n);
    expect(BigInt(`0x${asked.SigIgn}`)).toBe(BigInt(`0x${before.SigIgn}`) | ttinAndTtou);
    expect(BigInt(`0x${before.SigIgn}`) & ttinAndTtou).toBe(0n);
  });

  test('an argument of the wrong type is a TypeError naming the function and the argument', () => {
    const native = loadNativeProcessApi({ [NATIVE_ADDON_ENV]: join(dir, 'reaper.node') }) as unknown as Record<
      string,
      (...args: unknown[]) => unknown
    >;
    const calls: [() => unknown, RegExp][] = [
      [() => native.reapPid!('1'), /^reapPid: pid must be an integer, not a string$/],
      [() => native.reapPid!(), /^reapPid: pid must be an integer, not undefined$/],
      [() => native.pidfdSendSignal!(0, 'SIGTERM'), /^pidfdSendSignal: signal must be an integer, not a string$/],
      [() => native.giveTerminal!(0, null), /^giveTerminal: pgrp must be an integer, not null$/],
      [() => native.watchReadable!(0, 'later'), /^watchReadable: onReadable must be a function, not a string$/],
      [
        () => native.spawnForeground!({ path: '/bin/true', argv: ['true'], envp: [], cwd: '/', uid: '0', gid: -1, fd: 0, ownGroup: true }),
        /^spawnForeground: uid must be an integer, not a string$/,
      ],
      [
        () =>
          native.spawnForeground!({ path: '/bin/true', argv: ['true', 1], envp: [], cwd: '/', uid: -1, gid: -1, fd: 0, ownGroup: true }),
        /^spawnForeground: argv\[1\] must be a string, not a number$/,
      ],
      [() => native.spawnChild!('/bin/true', ['true']), /^spawnChild: options must be an object, not a string$/],
      [
        () => native.spawnChild!({ path: '/bin/true', argv: ['true'], envp: [], cwd: '/', uid: -1, gid: -1, pipeTo: [] }),
        /^spawnChild: nullStdin must be a boolean, not undefined$/,
      ],
      [() => native.setSignalRoute!(0, {}), /^setSignalRoute: routes must be an array, not an object$/],
      [() => native.setSignalRoute!(0, [1, '15']), /^setSignalRoute: routes\[1\] must be an integer, not a string$/],
      [() => native.forwardSignals!([null]), /^forwardSignals: signals\[0\] must be an integer, not null$/],
      [() => native.forwardSignals!([1], 'later', 200), /^forwardSignals: onForwarded must be a function, not a string$/],
      [() => native.forwardSignals!([1], () => {}, '200'), /^forwardSignals: windowMs must be an integer, not a string$/],
      [() => native.setChainedSignals!([1, '2']), /^setChainedSignals: signals\[1\] must be an integer, not a string$/],
    ];
    for (const [call, message] of calls) {
      expect(call).toThrow(TypeError);
      expect(call).toThrow(message);
      expect(call).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
    }
    // The right type out of range is a RangeError.
    expect(() => native.pidfdSendSignal!(0, 100_000)).toThrow(RangeError);
  });

  test('a failed system call throws an Error coded with its errno name, as Node codes its own', () => {
    const native = loadNativeProcessApi({ [NATIVE_ADDON_ENV]: join(dir, 'reaper.node') }) as unknown as Record<
      string,
      (...args: unknown[]) => unknown
    >;
    const gone = spawnSync('true').pid;
    expect(() => native.pidfdOpen!(gone)).toThrow(expect.objectContaining({ code: 'ESRCH', syscall: 'pidfd_open' }));
    expect(() => native.unixDgramBind!(join(dir, 'no-such-folder', 'notify'))).toThrow(
      expect.objectContaining({ code: 'ENOENT', syscall: 'bind' }),
    );
    const file = openSync(join(dir, 'reaper.node'), 'r');
    try {
      expect(() => native.peerCredentials!(file)).toThrow(
        expect.objectContaining({ code: 'ENOTSOCK', syscall: 'getsockopt(SO_PEERCRED)' }),
      );
    } finally {
      closeSync(file);
    }
    // The exec-failure pipe's errno, in a process of its own whose stdin is no terminal (the fork would hand it a group).
    const script = [
      `const addon = { exports: {} }; process.dlopen(addon, ${JSON.stringify(join(dir, 'reaper.node'))});`,
      `try { addon.exports.spawnForeground({ path: '/nonexistent/program', argv: ['program'], envp: [], cwd: '/', uid: -1, gid: -1, fd: 0, ownGroup: true }); } catch (error) { console.log(JSON.stringify({ code: error.code, syscall: error.syscall, message: error.message })); }`,
    ].join('\n');
    const failed = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(failed).toEqual({ code: 'ENOENT', syscall: 'exec', message: 'exec failed: No such file or directory (ENOENT, errno 2)' });
  });

  test('a child whose setup fails before exec names the step that failed (stdin, cwd, setgid, setuid) with its errno', () => {
    // Each in a process of its own, which prints what spawnChild threw.
    const spawnWith = (options: Record<string, unknown>) =>
      [
        `const addon = { exports: {} }; process.dlopen(addon, ${JSON.stringify(join(dir, 'reaper.node'))});`,
        `const options = { path: '/bin/true', argv: ['true'], envp: [], cwd: '/', uid: -1, gid: -1, nullStdin: false, pipeTo: [], ...${JSON.stringify(options)} };`,
        `try { addon.exports.spawnChild(options); console.log('{}'); } catch (error) { console.log(JSON.stringify({ code: error.code, syscall: error.syscall })); }`,
      ].join('\n');
    const run = (command: string, args: string[]) =>
      JSON.parse(execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    const node = process.execPath;
    expect(run(node, ['-e', spawnWith({ cwd: join(dir, 'no-such-folder') })])).toEqual({ code: 'ENOENT', syscall: 'cwd' });
    // Not root: the ids cannot change (and uid 1000 must reach the addon).
    chmodSync(dir, 0o755);
    const asUser = ['--reuid', '1000', '--regid', '1000', '--clear-groups', node, '-e'];
    expect(run('setpriv', [...asUser, spawnWith({ gid: 0 })])).toEqual({ code: 'EPERM', syscall: 'setgid' });
    expect(run('setpriv', [...asUser, spawnWith({ uid: 0 })])).toEqual({ code: 'EPERM', syscall: 'setuid' });
    // A root without /dev/null: a mount namespace whose /dev is an empty tmpfs.
    const withoutDevNull = [
      '--mount',
      'sh',
      '-c',
      'mount -t tmpfs none /dev && exec "$@"',
      'sh',
      node,
      '-e',
      spawnWith({ nullStdin: true }),
    ];
    expect(run('unshare', withoutDevNull)).toEqual({ code: 'ENOENT', syscall: 'stdin' });
    // The control: the same spawn with /dev/null there starts.
    expect(run(node, ['-e', spawnWith({ nullStdin: true })])).toEqual({});
  });

  test('exitNow ends the process with its code even while a thread-pool write is stuck on a full pipe', () => {
    const fifo = join(dir, 'stalled-log');
    execFileSync('mkfifo', [fifo]);
    // The child holds the FIFO's read end without reading, so its 1 MiB write
    // blocks a libuv thread, which process.exit would wait for forever.
    const script = (exit: string) =>
      [
        `const fs = require('node:fs');`,
        `fs.openSync(${JSON.stringify(fifo)}, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);`,
        `fs.createWriteStream('', { fd: fs.openSync(${JSON.stringify(fifo)}, 'w'), autoClose: false }).write(Buffer.alloc(1 << 20));`,
        `const addon = { exports: {} }; process.dlopen(addon, ${JSON.stringify(join(dir, 'reaper.node'))});`,
        // Time for a thread-pool thread to take the write and block in it, even on a loaded machine.
        `setTimeout(() => ${exit}, 500);`,
      ].join('\n');
    const run = (exit: string, timeout: number) => spawnSync(process.execPath, ['-e', script(exit)], { stdio: 'ignore', timeout });
    // A liveness bound: Node's start on a loaded machine, plus the 500ms.
    expect(run('addon.exports.exitNow(42)', 20_000)).toMatchObject({ status: 42, signal: null });
    // The control: the same with process.exit never ends (the timeout kills it).
    expect(run('process.exit(42)', 3_000)).toMatchObject({ status: null, signal: 'SIGTERM' });
  });
});

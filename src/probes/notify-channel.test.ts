import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadUnixSocketApi } from '../os/unix-socket.ts';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelEvents, ReadinessChannel } from './readiness-channel.ts';
import { openNotifyChannel } from './notify-channel.ts';

// The notify socket with real senders: python speaking the protocol, and
// processes inside and outside the attached process's tree.

const PYTHON = '/usr/bin/python3';
let channels: ReadinessChannel[] = [];
afterEach(() => {
  for (const channel of channels) channel.close();
  channels = [];
});

function open(options: { watchdogMs?: number; user?: { uid: number; gid: number; home: string } } = {}) {
  const seen: { statuses: string[]; missed: string[]; foreign: number[] } = { statuses: [], missed: [], foreign: [] };
  let wake: () => void = () => {};
  const events: ChannelEvents = {
    onStatus: (status) => {
      seen.statuses.push(status);
      wake();
    },
    onWatchdogMissed: (reason) => {
      seen.missed.push(reason);
      wake();
    },
    onForeignSender: (pid) => {
      seen.foreign.push(pid);
      wake();
    },
  };
  const channel = openNotifyChannel({ user: options.user, watchdogMs: options.watchdogMs, events });
  channels.push(channel);
  /** Resolves once the condition holds, checked after each event of the channel. */
  const until = (condition: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (condition()) resolve();
      };
      wake = check;
      channel.onReady(check);
      check();
    });
  return { channel, seen, until };
}

/**
 * Runs one python that sends each message and stays alive (a sender must still
 * exist when its message is read, as for systemd), as a child of a shell that
 * is attached as the run's main process (or not, when `attach` is false).
 */
function send(channel: ReadinessChannel, messages: string[], attach = true) {
  const script = `import os, socket, sys, time
for message in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.connect(os.environ["NOTIFY_SOCKET"]); s.send(message.encode())
time.sleep(30)`;
  // detached: its own process group, so the shell and its python are killed together.
  const child = spawn('/bin/sh', ['-c', `${PYTHON} -c "$0" "$@" & wait`, script, ...messages], {
    env: { ...process.env, ...channel.env },
    stdio: 'ignore',
    detached: true,
  });
  if (attach) channel.attach(child.pid!, undefined);
  senders.push(child);
  return child;
}
const senders: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of senders.splice(0)) process.kill(-child.pid!, 'SIGKILL');
});

describe('openNotifyChannel', () => {
  it('makes a private directory and a socket only the process user can reach, and removes them on close', () => {
    const { channel } = open({ user: { uid: 65534, gid: 65534, home: '/' } });
    const path = channel.env.NOTIFY_SOCKET!;
    const dir = statSync(dirname(path));
    expect({ mode: dir.mode & 0o777, uid: dir.uid, gid: dir.gid }).toEqual({ mode: 0o700, uid: 65534, gid: 65534 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(path).isSocket()).toBe(true);
    channel.close();
    expect(existsSync(dirname(path))).toBe(false);
  });

  it('is ready after READY=1 from a descendant of the process, keeping its latest STATUS=', async () => {
    const { channel, seen, until } = open();
    send(channel, ['STATUS=loading', 'READY=1\nSTATUS=serving']);
    await until(() => channel.ready && seen.statuses.length === 2);
    expect(seen.statuses).toEqual(['loading', 'serving']);
    expect(channel.status).toBe('serving');
  });

  it('drops messages from a process outside the tree, and says so', async () => {
    const { channel, seen, until } = open();
    const main = send(channel, []);
    send(channel, ['READY=1', 'READY=1'], false);
    await until(() => seen.foreign.length > 0);
    expect(channel.ready).toBe(false);
    expect(seen.foreign[0]).not.toBe(main.pid);
  });

  it('sets WATCHDOG_USEC and reports a missed watchdog once ready; WATCHDOG=trigger at once', async () => {
    const { channel, seen, until } = open({ watchdogMs: 300 });
    expect(channel.env.WATCHDOG_USEC).toBe('300000');
    send(channel, ['READY=1']);
    await until(() => seen.missed.length > 0);
    expect(seen.missed).toEqual(['no WATCHDOG=1 within its 300ms watchdog']);

    const second = open({ watchdogMs: 60_000 });
    send(second.channel, ['READY=1', 'WATCHDOG=trigger']);
    await second.until(() => second.seen.missed.length > 0);
    expect(second.seen.missed).toEqual(['it sent WATCHDOG=trigger']);
  });

  it('chowns nothing a neighbour puts in place of its folder in a parent others can write', () => {
    const parentDir = mkdtempSync(join(tmpdir(), 'sidecar-init-notify-parent-'));
    const victim = join(parentDir, 'victim');
    writeFileSync(victim, "root's\n");
    const real = loadUnixSocketApi();
    // The neighbour acts right after the bind: the folder renamed away, a symlink to the victim left in its place.
    const api = {
      ...real,
      unixDgramBind: (path: string) => {
        const fd = real.unixDgramBind(path);
        const made = join(parentDir, readdirSync(parentDir).find((name) => name.startsWith('sidecar-init-notify-'))!);
        renameSync(made, `${made}.moved`);
        symlinkSync(victim, made);
        return fd;
      },
    };
    const events: ChannelEvents = { onStatus: () => {}, onWatchdogMissed: () => {}, onForeignSender: () => {} };
    try {
      const user = { uid: 65534, gid: 65534, home: '/' };
      expect(() => openNotifyChannel({ user, watchdogMs: undefined, events, parentDir, api })).toThrow(/replaced/);
      expect(statSync(victim)).toMatchObject({ uid: 0, gid: 0 });
    } finally {
      rmSync(parentDir, { recursive: true, force: true });
    }
  });

  it('closes its socket and removes its folder when a step after the bind fails', () => {
    const sockets = () =>
      readdirSync('/proc/self/fd')
        .map((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`);
          } catch {
            return '';
          }
        })
        .filter((target) => target.startsWith('socket:'))
        .sort();
    const parentDir = mkdtempSync(join(tmpdir(), 'sidecar-init-notify-parent-'));
    try {
      const before = sockets();
      const events: ChannelEvents = { onStatus: () => {}, onWatchdogMissed: () => {}, onForeignSender: () => {} };
      // A gid past what chown takes: the bind has happened, the chown after it fails.
      const user = { uid: 0, gid: 2 ** 32, home: '/' };
      expect(() => openNotifyChannel({ user, watchdogMs: undefined, events, parentDir })).toThrow(/gid/);
      expect(sockets()).toEqual(before);
      expect(readdirSync(parentDir)).toEqual([]);
    } finally {
      rmSync(parentDir, { recursive: true, force: true });
    }
  });
});

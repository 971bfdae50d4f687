import { spawn } from 'node:child_process';
import { createServer, connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInProcessTree, loadUnixSocketApi } from './unix-socket.ts';
import { useTempDirs } from '../../test/support/temp-dirs.ts';

// The addon's Unix socket functions on real sockets and processes.

const tempDir = useTempDirs('unix');

describe('peerCredentials', () => {
  it("reads the connecting process's pid and uid as the kernel recorded them", async () => {
    const api = loadUnixSocketApi();
    const path = join(tempDir(), 'peer.sock');
    const accepted = new Promise<Socket>((resolve) => {
      const server = createServer((socket) => {
        resolve(socket);
        server.close();
      });
      server.listen(path);
    });
    const client = connect(path);
    const socket = await accepted;
    const fd = (socket as unknown as { _handle: { fd: number } })._handle.fd;
    expect(api.peerCredentials(fd)).toEqual({ pid: process.pid, uid: process.getuid!(), gid: process.getgid!() });
    client.destroy();
    socket.destroy();
  });
});

describe('unixDgramBind and unixDgramReceive', () => {
  it('receive nothing without blocking, then each datagram with its sender', async () => {
    const api = loadUnixSocketApi();
    const path = join(tempDir(), 'notify');
    const fd = api.unixDgramBind(path);
    expect(api.unixDgramReceive(fd)).toBeUndefined();
    const woken = new Promise<void>((resolve) => {
      const watch = api.watchReadable(fd, () => {
        watch.close();
        resolve();
      });
    });
    const sender = spawn('/usr/bin/python3', [
      '-c',
      `import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b"READY=1", "${path}")`,
    ]);
    await woken;
    const datagram = api.unixDgramReceive(fd);
    expect(datagram).toMatchObject({ pid: sender.pid, uid: process.getuid!(), fds: [], truncated: false });
    expect(datagram?.data.toString()).toBe('READY=1');
    await new Promise((resolve) => sender.on('close', resolve));
  });
});

describe('isInProcessTree', () => {
  it('finds a descendant, and not a process elsewhere', async () => {
    const parent = spawn('/bin/sh', ['-c', 'sleep 30 & echo $!; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const grandchild = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
    );
    try {
      expect(isInProcessTree(grandchild, parent.pid!)).toBe(true);
      expect(isInProcessTree(parent.pid!, parent.pid!)).toBe(true);
      expect(isInProcessTree(process.pid, parent.pid!)).toBe(false);
      expect(isInProcessTree(2 ** 22 + 1, parent.pid!)).toBe(false);
    } finally {
      process.kill(grandchild, 'SIGKILL');
      parent.kill('SIGKILL');
    }
  });
});

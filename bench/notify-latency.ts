import { spawn } from 'node:child_process';
import { openNotifyChannel } from '../src/probes/notify-channel.ts';
import { median } from './measure.ts';

// Inside sidecar-init: from a process sending READY=1 (the wall-clock time it
// put in the same datagram) to the notify socket's channel being ready, read
// through the native addon's poll handle on Node's loop.
const RUNS = 30;
const SEND = `
import os, socket, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.connect(os.environ["NOTIFY_SOCKET"])
s.send(f"READY=1\\nSTATUS={time.time_ns()}".encode())
time.sleep(5)
`;

function oneRun(): Promise<number> {
  return new Promise((resolve, reject) => {
    let sentNs = 0n;
    const channel = openNotifyChannel({
      user: undefined,
      watchdogMs: undefined,
      events: { onStatus: (status) => (sentNs = BigInt(status)), onWatchdogMissed: () => undefined, onForeignSender: () => undefined },
    });
    const sender = spawn('/usr/bin/python3', ['-c', SEND], { env: { ...process.env, ...channel.env }, stdio: 'ignore' });
    channel.attach(sender.pid!, undefined);
    sender.on('error', reject);
    channel.onReady(() => {
      const readyNs = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
      channel.close();
      sender.kill('SIGKILL');
      resolve(Number(readyNs - sentNs) / 1e6);
    });
  });
}

export async function run(): Promise<void> {
  const latencies: number[] = [];
  for (let index = 0; index < RUNS; index += 1) latencies.push(await oneRun());
  console.log(`\nREADY=1 sent -> notify readiness seen, in process (median of ${RUNS})`);
  console.log(`  sidecar-init   ${median(latencies).toFixed(3).padStart(10)} ms   (max ${Math.max(...latencies).toFixed(3)} ms)`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();

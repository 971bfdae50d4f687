import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { CONTENDERS, report } from './measure.ts';

// Resident memory of the init itself while its app idles: what every pod pays.
const SETTLE_MS = 1_000;

function rssKiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN);
}

export async function run(): Promise<void> {
  const medians = new Map<string, number>();
  for (const contender of CONTENDERS) {
    const [command, ...args] = contender.argv(['sleep', '30']);
    const child = spawn(command!, args, { stdio: 'ignore' });
    // Let the init finish starting (a Node process keeps allocating briefly).
    await delay(SETTLE_MS);
    medians.set(contender.name, rssKiB(child.pid!) / 1024);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  report('idle resident memory of the init (app: sleep)', 'MiB', medians);
}

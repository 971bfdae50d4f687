import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Reaper } from './reaper.ts';
import { signalEach, sweepDescendants } from './sweep.ts';

// The sweep's `killed` counts what signalEach returns: kills the kernel took,
// not kills that found their process already gone.

describe('signalEach', () => {
  it('returns only the PIDs the signal reached, not one whose process is gone', async () => {
    const gone = spawn('true', { stdio: 'ignore' });
    await once(gone, 'exit');
    const live = spawn('sleep', ['300'], { stdio: 'ignore' });
    const ended = once(live, 'exit');
    expect(signalEach([gone.pid ?? 0, live.pid ?? 0], 'SIGKILL')).toEqual([live.pid]);
    expect(await ended).toEqual([null, 'SIGKILL']);
  });
});

describe('sweepDescendants', () => {
  it('still kills a leftover that ignores SIGTERM when one pass overran the grace and the settle time together', async () => {
    const leftover = spawn('sh', ['-c', "trap '' TERM; exec sleep 300"], { stdio: 'ignore' });
    const ended = once(leftover, 'exit');
    try {
      // The trap is set once sh has become sleep (exec keeps an ignored signal ignored).
      await expect.poll(() => readFileSync(`/proc/${leftover.pid}/comm`, 'utf8').trim()).toBe('sleep');
      // Its child is libuv's: this test's reaper has nothing of its own to reap.
      const reaper: Reaper = { mode: 'subreaper', start() {}, stop() {}, reapZombies: () => [] };
      // Right after the first pass (the SIGTERM), the loop is held for longer than
      // the grace and the settle time together, as a flood of signals could hold it.
      setTimeout(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_500), 0);
      const swept = await sweepDescendants({ reaper, graceMs: 100 });
      expect(swept).toEqual({ terminated: 0, killed: 1 });
      expect(await ended).toEqual([null, 'SIGKILL']);
    } finally {
      leftover.kill('SIGKILL');
    }
  });
});

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { signalEach } from './sweep.ts';

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

import { spawn } from 'node:child_process';
import { afterEach, describe, expect, test } from 'vitest';
import { killStandins, startStandin, uniqueUid } from '../../test/support/standin.ts';
import { processMatch } from '../../test/support/matchers.ts';
import { createPresenceProbe } from './presence-probe.ts';

afterEach(() => {
  killStandins();
});

describe('createPresenceProbe', () => {
  test('fails while no process matches, passes once one exists, fails again when it is gone', async () => {
    const uid = uniqueUid();
    // A sleeper plays sidecar-init: the stand-in is this test's child, not its.
    const self = spawn('sleep', ['300'], { stdio: 'ignore' });
    try {
      const found: number[][] = [];
      const probe = createPresenceProbe(
        processMatch({ comm: 'envoy', uid }),
        (processes) => found.push(processes.map(({ pid }) => pid)),
        self.pid,
      );
      const signal = new AbortController().signal;
      expect(await probe.check(1_000, signal)).toEqual({ ok: false, reason: `no process with comm envoy, uid ${uid} yet` });
      const proxy = await startStandin('envoy', { uid });
      expect(await probe.check(1_000, signal)).toEqual({ ok: true });
      expect(await probe.check(1_000, signal)).toEqual({ ok: true });
      // Found is reported once, with what the first passing search saw.
      expect(found).toEqual([[proxy.pid]]);
      process.kill(proxy.pid, 'SIGKILL');
      await proxy.exited;
      expect((await probe.check(1_000, signal)).ok).toBe(false);
      expect(probe.description).toBe(`a process with comm envoy, uid ${uid}`);
    } finally {
      self.kill('SIGKILL');
    }
  });
});

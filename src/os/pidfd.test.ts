import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { openProcessHandle } from './pidfd.ts';

const PIDFD_MODULE = fileURLToPath(new URL('./pidfd.ts', import.meta.url));

describe('openProcessHandle', () => {
  test('signals the process it was opened on, and reports it gone once it exited', async () => {
    const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
    const exited = once(sleeper, 'exit');
    const handle = openProcessHandle(sleeper.pid ?? 0);
    expect(handle).toBeDefined();
    try {
      expect(handle?.signal(0)).toEqual({ kind: 'sent' });
      expect(handle?.signal('SIGTERM')).toEqual({ kind: 'sent' });
      expect(await exited).toEqual([null, 'SIGTERM']);
      // Reaped: the PID may be anyone's now, the pidfd still means the sleeper.
      expect(handle?.signal('SIGKILL')).toEqual({ kind: 'gone' });
    } finally {
      handle?.close();
      // A failed assertion above must not leave the sleeper behind.
      if (sleeper.exitCode === null && sleeper.signalCode === null) sleeper.kill('SIGKILL');
    }
  });

  test('a PID that does not exist gives no handle', () => {
    const gone = spawnSync('true');
    expect(openProcessHandle(gone.pid)).toBeUndefined();
  });

  test('another user without CAP_KILL gets not-permitted, not an exception', () => {
    const script = `import { openProcessHandle } from ${JSON.stringify(PIDFD_MODULE)};
const handle = openProcessHandle(${process.pid});
console.log(JSON.stringify(handle.signal(0)));
handle.close();`;
    // setpriv as nobody: CAP_DAC_READ_SEARCH only lets it reach node wherever the
    // checkout is (a private /root, say); it grants no CAP_KILL.
    const asNobody = ['--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=+dac_read_search', '--ambient-caps=+dac_read_search'];
    const result = spawnSync('setpriv', [...asNobody, process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ kind: 'not-permitted' });
  });
});

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, test } from 'vitest';
import type { ProcEntry } from './proc-table.ts';
import {
  isAlive,
  isLiveEntry,
  listDescendants,
  parseProcStat,
  parseStartTime,
  readEachProcess,
  readProcTable,
  readProcTableNow,
} from './proc-table.ts';

/** More than a slice's reads at 1ms each (SLICE_MS), however few processes /proc shows. */
const EXTRA_PROCESSES = 20;

const STAT_TAIL = '0 0 0 0 -1 4194560 95 0 0 0 0 0 0 0 20 0 1 0 1234 2289664 229 18446744073709551615\n';

describe('parseProcStat', () => {
  test('reads pid, comm, state and ppid', () => {
    expect(parseProcStat(`42 (sleep) S 7 42 ${STAT_TAIL}`)).toEqual({ pid: 42, ppid: 7, state: 'S', comm: 'sleep', kernelThread: false });
  });

  test('a comm with spaces and parentheses ends at the last )', () => {
    expect(parseProcStat(`123 ((a) b)) Z 1 123 ${STAT_TAIL}`)).toEqual({
      pid: 123,
      ppid: 1,
      state: 'Z',
      comm: '(a) b)',
      kernelThread: false,
    });
    expect(parseProcStat(`9 (x ) S 5) R 3 9 ${STAT_TAIL}`)).toEqual({ pid: 9, ppid: 3, state: 'R', comm: 'x ) S 5', kernelThread: false });
  });

  test('tells a kernel thread by PF_KTHREAD in its flags', () => {
    const kthreadd = '2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 25 0 0 18446744073709551615\n';
    expect(parseProcStat(kthreadd)).toMatchObject({ pid: 2, comm: 'kthreadd', kernelThread: true });
  });

  test('reads the start time (field 22), whatever the comm holds', () => {
    const line = '77 (a) b) S 1 77 77 0 -1 4194560 95 0 0 0 0 0 0 0 20 0 1 0 98765 2289664 229 18446744073709551615\n';
    expect(parseStartTime(line)).toBe('98765');
    expect(parseStartTime('77 (x) S 1')).toBeUndefined();
  });

  test('rejects what is not a stat line', () => {
    expect(parseProcStat('')).toBeUndefined();
    expect(parseProcStat('42 sleep S 7')).toBeUndefined();
    expect(parseProcStat('x (sleep) S 7')).toBeUndefined();
    expect(parseProcStat('42 (sleep)')).toBeUndefined();
  });
});

describe('listDescendants', () => {
  const entry = (pid: number, ppid: number, state = 'S'): ProcEntry => ({ pid, ppid, state, comm: `p${pid}`, kernelThread: false });
  const table = [entry(1, 0), entry(10, 1), entry(11, 10), entry(12, 11, 'Z'), entry(20, 1), entry(30, 99)];

  test('finds children, grandchildren and zombies, not the root or strangers', () => {
    expect(
      listDescendants(10, table)
        .map(({ pid }) => pid)
        .sort(),
    ).toEqual([11, 12]);
    expect(
      listDescendants(1, table)
        .map(({ pid }) => pid)
        .sort(),
    ).toEqual([10, 11, 12, 20]);
    expect(listDescendants(30, table)).toEqual([]);
  });

  test('isLiveEntry excludes zombies and dead entries', () => {
    expect([entry(1, 0, 'R'), entry(2, 0, 'D'), entry(3, 0, 'Z'), entry(4, 0, 'X')].map(isLiveEntry)).toEqual([true, true, false, false]);
  });
});

describe('the live /proc', () => {
  test('contains this process with its parent, read in slices or at once', async () => {
    const table = await readProcTable();
    expect(table).toContainEqual(expect.objectContaining({ pid: process.pid, ppid: process.ppid }));
    expect(listDescendants(process.ppid, table).map(({ pid }) => pid)).toContain(process.pid);
    expect(readProcTableNow()).toContainEqual(expect.objectContaining({ pid: process.pid, ppid: process.ppid }));
  });

  test('a pass lets the event loop turn between slices, however slow each read is', async () => {
    // Processes of its own, so that /proc holds more than a slice's worth
    // wherever the test runs (a container may show only a handful).
    const sleepers = Array.from({ length: EXTRA_PROCESSES }, () => spawn('sleep', ['300'], { stdio: 'ignore' }));
    try {
      await Promise.all(sleepers.map((child) => once(child, 'spawn')));
      let reads = 0;
      let readsWhenTheLoopTurned: number | undefined;
      setImmediate(() => {
        readsWhenTheLoopTurned = reads;
      });
      // Each read holds the thread 1ms, as a slow /proc would: a slice holds a few, never the whole pass.
      const pids = await readEachProcess((pid) => {
        reads += 1;
        const until = performance.now() + 1;
        while (performance.now() < until) {
          // holds the thread
        }
        return pid;
      });
      expect(pids.length).toBeGreaterThan(EXTRA_PROCESSES);
      expect(readsWhenTheLoopTurned).toBeLessThan(10);
    } finally {
      await Promise.all(
        sleepers.map((child) => {
          const exited = once(child, 'exit');
          child.kill('SIGKILL');
          return exited;
        }),
      );
    }
  });

  test('a process that vanishes while it is read is skipped, not an error', async () => {
    const pids = await readEachProcess((pid) => {
      if (pid === process.pid) throw Object.assign(new Error('gone'), { code: 'ENOENT' });
      return pid;
    });
    expect(pids).not.toContain(process.pid);
    expect(pids).toContain(process.ppid);
    await expect(
      readEachProcess(() => {
        throw Object.assign(new Error('broken'), { code: 'EIO' });
      }),
    ).rejects.toThrow('broken');
  });

  test('isAlive is true for this process and false for a PID that does not exist', () => {
    expect(isAlive(process.pid)).toBe(true);
    expect(isAlive(2 ** 22 + 1)).toBe(false); // above Linux's PID_MAX_LIMIT
  });
});

// What a start frees through malloc (the parser's and compiler's zones) goes
// back to the kernel once the start is over: without the trim, malloc's heap
// kept several MiB more private for the supervisor's whole life, idle with
// three sidecars. The bound below sits between the heap before and after the
// trim in bench/README.md's run (npm run bench, memory, prints that line).
import { readFileSync } from 'node:fs';
import { MEMORY_TRIM_DELAY_MS } from '../src/os/trim-memory.ts';
import { describe, expect, it } from 'vitest';
import { useHarness } from './support/harness.ts';
import { startSupervisor } from './support/supervisor.ts';

const { track, events: createEvents, expectNothingLeft } = useHarness();
const MALLOC_HEAP_BOUND_KIB = 4 * 1024;

/** Private_Dirty of the [heap] mapping (malloc's main arena), from /proc/PID/smaps. */
function mallocHeapPrivateKiB(pid: number): number {
  let inHeap = false;
  let total = 0;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'latin1').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inHeap = line.endsWith('[heap]');
    else if (inHeap && line.startsWith('Private_Dirty:')) total += Number(/(\d+) kB/.exec(line)?.[1]);
  }
  return total;
}

describe('once started', () => {
  it(`returns what the start freed to the kernel: malloc's heap under ${MALLOC_HEAP_BOUND_KIB / 1024} MiB private, idle with three sidecars`, {
    timeout: 60_000,
  }, async () => {
    const sidecars = ['s0', 's1', 's2'].flatMap((name) => ['--sidecar', `${name}=sleep 1000`]);
    const run = track(startSupervisor(['--log-level', 'debug', ...sidecars, '--', 'sleep', '1000']));
    const trimmed = await run.waitForLog((line) => line.event === 'memory-trimmed');
    expect(trimmed.released).toBe(true);
    expect(trimmed.rssAfter).toBeLessThan(trimmed.rssBefore as number);
    expect(mallocHeapPrivateKiB(run.process.pid!)).toBeLessThan(MALLOC_HEAP_BOUND_KIB);
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(143);
    await expectNothingLeft(run);
  });

  it("does not trim once the run is stopping: a sweep that outlasts the trim's delay runs without it", { timeout: 60_000 }, async () => {
    const events = createEvents();
    const fifo = `${events.dir}/leftover-ready`;
    // The app exits at once, leaving in a session of its own a process that
    // ignores SIGTERM; it exits only once that process has set its trap (a
    // FIFO, not a poll), so the sweep waits the whole grace for it.
    const leftover = `trap '' TERM; echo > ${fifo}; exec sleep 300`;
    const app = `mkfifo ${fifo}; setsid /bin/sh -c ${JSON.stringify(leftover)} & read _ < ${fifo}`;
    const graceS = (2 * MEMORY_TRIM_DELAY_MS) / 1000;
    const run = track(startSupervisor(['--log-level', 'debug', '--grace', `${graceS}s`, '--', '/bin/sh', '-c', app]));
    expect((await run.exited).code).toBe(0);
    // Killed, not ended by SIGTERM: the sweep lasted its whole budget, past the trim's delay.
    expect(run.logs.find((line) => line.event === 'swept')).toMatchObject({ killed: 1 });
    expect(run.logs.filter((line) => line.event === 'memory-trimmed')).toEqual([]);
    await expectNothingLeft(run);
  });
});

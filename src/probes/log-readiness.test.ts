import { describe, expect, it } from 'vitest';
import { useProcessSandbox } from '../../test/support/process-sandbox.ts';
import type { OutputStream } from '../process/child.ts';
import { isAlive } from '../os/proc-table.ts';
import { createLogMatcher } from './log-matcher.ts';
import { createLogProbe } from './latched-probe.ts';
import { countResources, expectNoResourcesBeyond } from '../../test/support/probes.ts';
import { watchReadiness } from './watch-readiness.ts';

// A real process's output, through the spawner's capture pipes, into the
// matcher; readiness through watchReadiness with a period far too long to
// explain a prompt answer, so only the match's wake can.

const LONG_PERIOD_MS = 20_000;
const TIMING = { periodMs: LONG_PERIOD_MS, timeoutMs: 1_000, periodAfterStartMs: LONG_PERIOD_MS };
/** A liveness bound far below the period; how fast it really is, bench/log-readiness-latency.ts measures. */
const WAKE_BOUND_MS = 3_000;

const sandbox = useProcessSandbox('log-readiness-test-', { expectNoOwnedPids: true });

/** Wall-clock milliseconds with sub-ms precision, comparable across processes. */
const wallNow = () => performance.timeOrigin + performance.now();

/** A node child that prints noise, then after delayMs one line with the wall time it was written at. */
function spawnAnnouncer(stream: OutputStream, line: string, onOutput: (chunk: Buffer, stream: OutputStream) => void) {
  const script = `
    process.stdout.write('starting\\nloading config\\n');
    setTimeout(() => process.${stream}.write(${JSON.stringify(line)} + ' ' + (performance.timeOrigin + performance.now()) + '\\n'), 50);
    setTimeout(() => {}, 60_000);
  `;
  const spawned = sandbox.spawner.spawn({
    name: 'announcer',
    command: [process.execPath, '-e', script],
    env: {},
    cwd: undefined,
    stdio: 'capture',
    onOutput,
  });
  if (!spawned.ok) throw new Error(spawned.status.reason);
  sandbox.track(spawned.child.pid);
  return spawned.child;
}

async function timeOneRun(stream: OutputStream): Promise<number> {
  const matcher = createLogMatcher('^listening on :\\d+ ');
  let written = '';
  const child = spawnAnnouncer(stream, 'listening on :8080', (chunk, from) => {
    written += chunk.toString();
    matcher.feed(chunk, from);
  });
  const controller = new AbortController();
  const readyAt = await new Promise<number>((resolve) =>
    watchReadiness(createLogProbe(matcher), TIMING, (ready) => ready && resolve(wallNow()), controller.signal),
  );
  controller.abort();
  child.signal('SIGKILL');
  await child.exited;
  const writtenAt = Number(/listening on :\d+ ([\d.]+)/.exec(written)![1]);
  return readyAt - writtenAt;
}

describe('log readiness with a real process', () => {
  it('is ready on the line itself, on stdout or stderr, not at the next period', async () => {
    for (const stream of ['stdout', 'stderr'] as const) {
      const latency = await timeOneRun(stream);
      // Long before the period could explain it. (No lower bound: the two wall
      // clocks are different processes' and may disagree by a few ms.)
      expect(latency).toBeLessThan(WAKE_BOUND_MS);
    }
  });

  it('leaves nothing behind when aborted before the match', async () => {
    const before = countResources();
    const matcher = createLogMatcher('never printed');
    const child = spawnAnnouncer('stdout', 'listening on :8080', matcher.feed);
    const controller = new AbortController();
    let changes = 0;
    watchReadiness(createLogProbe(matcher), TIMING, () => (changes += 1), controller.signal);
    controller.abort();
    child.signal('SIGKILL');
    await child.exited;
    expect(isAlive(child.pid)).toBe(false);
    expect(changes).toBe(0);
    await expectNoResourcesBeyond(before);
  });
});

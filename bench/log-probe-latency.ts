import { createLogMatcher } from '../src/probes/log-matcher.ts';
import { createLogProbe } from '../src/probes/latched-probe.ts';
import { watchReadiness } from '../src/probes/watch-readiness.ts';
import { loadNativeProcessApi } from '../src/os/native.ts';
import { createSpawner } from '../src/process/spawn.ts';
import { median } from './measure.ts';

// Inside sidecar-init: from a sidecar writing its "listening" line to the
// readiness watch reporting it ready, through the spawner's capture pipes and
// the log matcher's wake. The period is far too long to explain the answer, so
// this is the event path alone. (End to end, line to app start, is
// log-readiness-latency.ts.)
const RUNS = 20;
const LONG_PERIOD_MS = 60_000;
const TIMING = { periodMs: LONG_PERIOD_MS, timeoutMs: 1_000, periodAfterStartMs: LONG_PERIOD_MS };
const wallNow = () => performance.timeOrigin + performance.now();

async function oneRun(): Promise<number> {
  // A capture spawn: child_process's, which reaps it itself (no reaper needed).
  const spawner = await createSpawner({ native: loadNativeProcessApi(), pipes: true });
  const matcher = createLogMatcher('^listening on :\\d+ ');
  let written = '';
  const script = `
    process.stdout.write('starting\\nloading config\\n');
    setTimeout(() => process.stdout.write('listening on :8080 ' + (performance.timeOrigin + performance.now()) + '\\n'), 50);
    setTimeout(() => {}, 60_000);
  `;
  const spawned = spawner.spawn({
    name: 'announcer',
    command: [process.execPath, '-e', script],
    env: {},
    cwd: undefined,
    stdio: 'capture',
    onOutput: (chunk, stream) => {
      written += chunk.toString();
      matcher.feed(chunk, stream);
    },
  });
  if (!spawned.ok) throw new Error(spawned.status.reason);
  const controller = new AbortController();
  const readyAt = await new Promise<number>((resolve) =>
    watchReadiness(createLogProbe(matcher), TIMING, (ready) => ready && resolve(wallNow()), controller.signal),
  );
  controller.abort();
  spawned.child.signal('SIGKILL');
  await spawned.child.exited;
  return readyAt - Number(/listening on :\d+ ([\d.]+)/.exec(written)![1]);
}

export async function run(): Promise<void> {
  const latencies: number[] = [];
  for (let index = 0; index < RUNS; index += 1) latencies.push(await oneRun());
  console.log(`\nlog line -> readiness watch reports ready, in process (median of ${RUNS})`);
  console.log(`  sidecar-init   ${median(latencies).toFixed(2).padStart(10)} ms   (max ${Math.max(...latencies).toFixed(2)} ms)`);
}

// `npm run bench:pod`: in a real pod (podman, examples/k8s/job-istio-regular-sidecar.yaml),
// how long sidecar-init takes from the proxy of the sibling container becoming
// ready to the app starting, and from the app's exit to the pod being complete
// (every container exited: what a Job controller waits for). Root and podman
// needed; images are built as for `npm run test:pod`.
//
// Clocks: the stand-in proxy and the job print wall-clock milliseconds; the
// pod's completion is the latest container FinishedAt from podman inspect. All
// on the same host clock.
import { buildImages } from '../test/pod/support/images.ts';
import { container, jsonLines, loadWorkload, playPod, removePods } from '../test/pod/support/pod.ts';

const RUNS = Number(process.env.BENCH_POD_RUNS ?? 7);

await buildImages(() => {});
const readyToSpawn: number[] = [];
const readyToStart: number[] = [];
const exitToComplete: number[] = [];
for (let run = 0; run < RUNS; run += 1) {
  const workload = loadWorkload('job-istio-regular-sidecar.yaml');
  // Ready 2s after it starts, so sidecar-init is already waiting for it.
  const proxy = container(workload.spec, 'istio-proxy');
  proxy.args = [...(proxy.args ?? []), '--standin-ready-after=2'];
  const pod = await playPod(workload);
  try {
    const states = await pod.waitForCompletion();
    const ready = jsonLines(await pod.logs('istio-proxy')).find((line) => line.event === 'ready')?.t;
    const appLog = jsonLines(await pod.logs('report'));
    const job = appLog.filter((line) => line.job === 'report-job');
    const spawned = appLog.find((line) => line.name === 'sidecar-init' && line.event === 'spawned' && line.proc === 'app')?.time;
    const started = job.find((line) => line.event === 'started')?.t;
    const done = job.find((line) => line.event === 'done')?.t;
    if (ready === undefined || started === undefined || done === undefined || spawned === undefined)
      throw new Error(`run ${run}: missing events`);
    readyToSpawn.push(Date.parse(spawned) - ready);
    readyToStart.push(started - ready);
    exitToComplete.push(Math.max(...states.map((state) => state.finishedAt)) - done);
  } finally {
    await removePods();
  }
}

console.log(`pod latency over ${RUNS} pods (examples/k8s/job-istio-regular-sidecar.yaml)`);
console.log(`  proxy ready → app spawned:   ${summary(readyToSpawn)}  (sidecar-init's own log line)`);
console.log(`  proxy ready → app started:   ${summary(readyToStart)}  (the app's first line: Python started too)`);
console.log(`  app exited  → pod complete:  ${summary(exitToComplete)}`);

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  return `median ${median} ms (min ${sorted[0]} ms, max ${sorted.at(-1)} ms)`;
}

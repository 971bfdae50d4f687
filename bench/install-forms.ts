// `npm run bench -- --only install-forms`: what each way of giving a pod
// sidecar-init without rebuilding its image costs at every pod start, in a
// real pod (podman; images as for `npm run test:pod`, root needed): copy-in
// (examples/k8s/job-cloud-sql-proxy.yaml, the init container copies the
// executable into an emptyDir) against the image volume
// (examples/k8s/job-image-volume.yaml, the same Job, nothing copied).
// Measured: from `podman kube play` being asked to the job's first line
// (its own wall clock), and the bytes in /opt/sidecar-init when that mount is
// writable (what the pod start wrote; an image volume's is read-only, 0).
import { execFileSync } from 'node:child_process';
import { buildImages } from '../test/pod/support/images.ts';
import { container, jsonLines, loadWorkload, playPod, removePods } from '../test/pod/support/pod.ts';
import { podman } from '../test/pod/support/podman.ts';

const RUNS = Number(process.env.BENCH_POD_RUNS ?? 3);
const FORMS = [
  ['copy-in', 'job-cloud-sql-proxy.yaml'],
  ['image volume', 'job-image-volume.yaml'],
] as const;

export async function run(): Promise<void> {
  await buildImages(() => {});
  console.log(`\ninstall forms: pod start to the job's start, bytes written at start (${RUNS} runs each, median)`);
  for (const [form, file] of FORMS) {
    const times: number[] = [];
    const written: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const workload = loadWorkload(file);
      const proxy = container(workload.spec, 'cloud-sql-proxy');
      proxy.args = [...(proxy.args ?? []), '--standin-ready-after=0'];
      const asked = Date.now();
      const pod = await playPod(workload);
      try {
        await pod.waitForCompletion();
        const started = jsonLines(await pod.logs('report')).find((line) => line.job === 'report-job' && line.event === 'started')?.t;
        if (started === undefined) throw new Error(`${file}: the job never started`);
        times.push(started - asked);
        const [inspected] = JSON.parse(await podman(['inspect', pod.containerName('report')])) as {
          Mounts: { Destination: string; Source: string; RW: boolean }[];
        }[];
        const mount = inspected?.Mounts.find((entry) => entry.Destination === '/opt/sidecar-init');
        if (mount === undefined) throw new Error(`${file}: nothing mounted at /opt/sidecar-init`);
        // The copy's volume is mounted read-only into the app but written by the init container: its size is what the start wrote.
        const copied =
          file === 'job-image-volume.yaml' ? 0 : Number(execFileSync('du', ['-sb', mount.Source], { encoding: 'utf8' }).split('\t')[0]);
        written.push(copied);
      } finally {
        await removePods();
      }
    }
    console.log(
      `  ${form.padEnd(13)} ${median(times).toFixed(0).padStart(6)} ms   ${(median(written) / 1e6).toFixed(1).padStart(6)} MB written`,
    );
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

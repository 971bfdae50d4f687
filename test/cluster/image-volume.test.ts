import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { jsonLines } from '../pod/support/pod.ts';
import { apply, createNamespace, deleteNamespace, documents, getJson, jobPods, logs, status, waitForJob } from './support/cluster.ts';

// examples/k8s/job-image-volume.yaml in a real kubelet and containerd 2: the
// Dockerfile's `volume` target mounted by the kubelet as an image volume
// (KEP-4639), read-only, sidecar-init run from it, nothing copied.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = `${ROOT}examples/k8s/job-image-volume.yaml`;
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

interface Container {
  name: string;
  command: string[];
  env?: { name: string; value: string }[];
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string; image?: unknown; emptyDir?: unknown }[];
}

let namespace: string | undefined;
afterEach(async () => {
  if (namespace !== undefined) await deleteNamespace(namespace);
  namespace = undefined;
});

test('sidecar-init runs from the read-only image volume of the volume target: nothing copied, the job’s code is the Job’s', async () => {
  namespace = await createNamespace('imagevolume');
  const objects = documents(readFileSync(EXAMPLE, 'utf8'));
  const job = objects.find((object) => object.kind === 'Job') as { spec: { template: { spec: PodSpec } } };
  const app = job.spec.template.spec.containers.find((container) => container.name === 'report');
  if (app === undefined) throw new Error('no report container');
  // The job, under sidecar-init, first shows the mount as the kernel has it,
  // fails (9) if it can write there, and prints the executable's checksum.
  const job_ = app.command.indexOf('--');
  app.command = [
    ...app.command.slice(0, job_ + 1),
    '/bin/sh',
    '-c',
    'grep " /opt/sidecar-init " /proc/mounts; if touch /opt/sidecar-init/written 2>/dev/null; then exit 9; fi; sha256sum /opt/sidecar-init/sidecar-init.runtime/sidecar-init; exec /app/report-job',
  ];
  app.env = [{ name: 'REPORT_JOB_EXIT', value: '3' }];
  await apply(namespace, objects);

  const { outcome } = await waitForJob(namespace, 'report-image-volume');
  expect(outcome).toBe('Failed');
  const [pod] = await jobPods(namespace, 'report-image-volume');
  if (pod === undefined) throw new Error('no pod');
  expect(pod.status.phase).toBe('Failed');
  expect(status(pod, 'report').state.terminated?.exitCode).toBe(3);
  expect(status(pod, 'cloud-sql-proxy').state.terminated?.exitCode).toBe(0);

  // Nothing copied: the pod the API server holds has no init container and no emptyDir; the volume is the image.
  const spec = (await getJson<{ spec: PodSpec }>(['get', 'pod', pod.metadata.name, '-n', namespace])).spec;
  expect(spec.initContainers ?? []).toEqual([]);
  expect((spec.volumes ?? []).filter((volume) => volume.emptyDir !== undefined)).toEqual([]);
  expect(spec.volumes?.find((volume) => volume.name === 'sidecar-init')?.image).toMatchObject({
    reference: 'registry.example.com/tools/sidecar-init-volume:0.1.0',
  });

  const log = await logs(namespace, pod.metadata.name, 'report');
  const mount = log.split('\n').find((line) => line.includes(' /opt/sidecar-init '));
  expect(mount?.split(' ')[3]?.split(',')).toContain('ro');
  // The very executable `sidecar-init install` wrote into the volume image.
  expect(log).toContain(`${sha256(`${ROOT}dist/sidecar-init`)}  /opt/sidecar-init/sidecar-init.runtime/sidecar-init`);
  const supervisor = jsonLines(log).filter((line) => line.name === 'sidecar-init');
  expect(supervisor.at(-1)).toMatchObject({ event: 'exit', exitCode: 3 });
});

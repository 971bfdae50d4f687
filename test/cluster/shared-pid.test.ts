import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { jsonLines } from '../pod/support/pod.ts';
import { apply, createNamespace, deleteNamespace, documents, jobPods, logs, status, waitForJob } from './support/cluster.ts';

// examples/k8s/job-istio-regular-sidecar.yaml, a pod with
// shareProcessNamespace: true, in a real kubelet: the pod's sandbox (pause,
// test/cluster/fixtures/pause.c) is PID 1 of the pod's PID namespace, so
// sidecar-init is not, and registers as a child subreaper (docs/lifecycle.md,
// Reaping). The job leaves a daemon behind, in a session of its own: adopted
// by sidecar-init as a subreaper (not by pause), it is ended by sidecar-init's
// final sweep before it exits, and the Job completes with nothing left running.

const EXAMPLE = fileURLToPath(new URL('../../examples/k8s/job-istio-regular-sidecar.yaml', import.meta.url));

interface Container {
  name: string;
  env?: { name: string; value: string }[];
}

let namespace: string | undefined;
afterEach(async () => {
  if (namespace !== undefined) await deleteNamespace(namespace);
  namespace = undefined;
});

test('shareProcessNamespace: pause is PID 1, sidecar-init a subreaper that ends the daemon the job left; the Job completes', async () => {
  namespace = await createNamespace('sharedpid');
  const objects = documents(readFileSync(EXAMPLE, 'utf8'));
  const job = objects.find((object) => object.kind === 'Job') as { spec: { template: { spec: { containers: Container[] } } } };
  const app = job.spec.template.spec.containers.find((container) => container.name === 'report');
  if (app === undefined) throw new Error('job-istio-regular-sidecar.yaml: no report container');
  app.env = [{ name: 'REPORT_JOB_DAEMON', value: '1' }];
  await apply(namespace, objects);

  const { outcome } = await waitForJob(namespace, 'report-istio');
  expect(outcome).toBe('Complete');
  const [pod] = await jobPods(namespace, 'report-istio');
  if (pod === undefined) throw new Error('no pod');
  expect(pod.status.phase).toBe('Succeeded');
  // Nothing left running: every container has terminated, the proxy stopped by sidecar-init (0).
  for (const container of [...(pod.status.initContainerStatuses ?? []), ...(pod.status.containerStatuses ?? [])])
    expect({ name: container.name, exitCode: container.state.terminated?.exitCode }).toEqual({ name: container.name, exitCode: 0 });
  expect(status(pod, 'report').restartCount).toBe(0);

  const log = jsonLines(await logs(namespace, pod.metadata.name, 'report'));
  const started = log.find((line) => line.job === 'report-job' && line.event === 'started');
  // PID 1 is the pod's sandbox, not sidecar-init.
  expect(started).toMatchObject({ pid1: '/pause' });
  const supervisor = log.filter((line) => line.name === 'sidecar-init');
  expect(supervisor.find((line) => line.event === 'starting')).toMatchObject({ mode: 'subreaper', namespace: 'shared' });
  expect(String(supervisor.find((line) => line.event === 'starting')?.msg)).toContain('running as a subreaper in a shared PID namespace');
  // The daemon, orphaned when the job exited, was sidecar-init's to end: one process, gone after SIGTERM.
  expect(log.find((line) => line.job === 'report-job' && line.event === 'daemon')).toBeDefined();
  expect(supervisor.find((line) => line.event === 'swept')).toMatchObject({ terminated: 1, killed: 0 });
  // And, its parent once the job was gone, sidecar-init reaped it.
  expect(supervisor.filter((line) => line.event === 'reaped').reduce((sum, line) => sum + Number(line.count), 0)).toBeGreaterThanOrEqual(1);
  expect(supervisor.at(-1)).toMatchObject({ event: 'exit', exitCode: 0 });
});

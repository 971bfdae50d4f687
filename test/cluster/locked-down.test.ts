import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { jsonLines } from '../pod/support/pod.ts';
import { apply, createNamespace, deleteNamespace, documents, jobPods, logs, status, waitForJob } from './support/cluster.ts';

// examples/k8s/job-separate-pid.yaml, the Job written for locked-down
// containers (docs/externals.md), applied as written: every container with a
// read-only root, runAsNonRoot, no privilege escalation and every capability
// dropped, so the kubelet and containerd make them so. The job reports what
// it found itself running in (its uid, its effective capabilities, what
// writing at its root gave): the lock-down held, and sidecar-init, copied in
// by the init container, still ran both sides to the Job's completion.

const EXAMPLE = fileURLToPath(new URL('../../examples/k8s/job-separate-pid.yaml', import.meta.url));

let namespace: string | undefined;
afterEach(async () => {
  if (namespace !== undefined) await deleteNamespace(namespace);
  namespace = undefined;
});

test('job-separate-pid.yaml in locked-down containers: non-root, no capabilities, read-only root, and the Job completes', async () => {
  namespace = await createNamespace('locked');
  await apply(namespace, documents(readFileSync(EXAMPLE, 'utf8')));
  const { outcome } = await waitForJob(namespace, 'report-separate-pid');
  expect(outcome).toBe('Complete');
  const [pod] = await jobPods(namespace, 'report-separate-pid');
  if (pod === undefined) throw new Error('no pod');
  expect(pod.status.phase).toBe('Succeeded');
  for (const name of ['sidecar-init', 'report', 'cloud-sql-proxy'])
    expect({ name, exitCode: status(pod, name).state.terminated?.exitCode }).toEqual({ name, exitCode: 0 });

  const report = jsonLines(await logs(namespace, pod.metadata.name, 'report'));
  const started = report.find((line) => line.job === 'report-job' && line.event === 'started');
  // The job, sidecar-init's child: the manifest's user, no capability at all, a root it cannot write.
  expect(started).toMatchObject({ uid: 65532, capEff: '0000000000000000', rootWrite: 'EROFS' });
  const supervisor = report.filter((line) => line.name === 'sidecar-init');
  expect(supervisor.find((line) => line.event === 'starting')).toMatchObject({ mode: 'pid1' });
  expect(supervisor.at(-1)).toMatchObject({ event: 'exit', exitCode: 0 });

  // The proxy's side: its sidecar-init saw the app's side announce its exit, stopped the proxy, exited 0.
  const proxy = jsonLines(await logs(namespace, pod.metadata.name, 'cloud-sql-proxy'));
  expect(proxy.find((line) => line.proxy === 'cloud-sql-proxy' && line.event === 'listening')).toMatchObject({ uid: 65532 });
  expect(proxy.find((line) => line.name === 'sidecar-init' && line.event === 'teardown')).toMatchObject({ reason: 'until' });
  expect(proxy.filter((line) => line.name === 'sidecar-init').at(-1)).toMatchObject({ event: 'exit', exitCode: 0 });
});

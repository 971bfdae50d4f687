import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { jsonLines } from '../pod/support/pod.ts';
import { apply, createNamespace, deleteNamespace, documents, jobPods, logs, status, waitForJob } from './support/cluster.ts';

// examples/k8s/job-native-sidecars.yaml in a real kubelet: the proxy an init
// container with restartPolicy: Always (KEP-753), which podman 4 cannot play.
// The kubelet must hold the app until the proxy's startupProbe passes, stop
// the proxy only after the app has exited, and report the pod Succeeded;
// sidecar-init runs inside the app container beside it, as its PID 1.

const EXAMPLE = fileURLToPath(new URL('../../examples/k8s/job-native-sidecars.yaml', import.meta.url));

interface Container {
  name: string;
  args?: string[];
  env?: { name: string; value: string }[];
}

let namespace: string | undefined;
afterEach(async () => {
  if (namespace !== undefined) await deleteNamespace(namespace);
  namespace = undefined;
});

test('the kubelet holds the app until the native sidecar’s startupProbe passes, stops the sidecar after it, the pod Succeeded', async () => {
  namespace = await createNamespace('native');
  const objects = documents(readFileSync(EXAMPLE, 'utf8'));
  const job = objects.find((object) => object.kind === 'Job') as {
    spec: { template: { spec: { containers: Container[]; initContainers: Container[] } } };
  };
  const { containers, initContainers } = job.spec.template.spec;
  const proxy = initContainers.find((container) => container.name === 'istio-proxy');
  const app = containers.find((container) => container.name === 'report');
  if (proxy === undefined || app === undefined)
    throw new Error('job-native-sidecars.yaml: no istio-proxy init container or report container');
  // The proxy answers its ready endpoint only 3 s after it started; the app
  // fails (exit 1) unless that endpoint answers 200 when it runs.
  // (--standin-listen-all: the stand-in listens where the kubelet's probe reaches it, as Istio's health port does.)
  proxy.args = [...(proxy.args ?? []), '--standin-ready-after=3', '--standin-listen-all'];
  app.env = [{ name: 'REPORT_JOB_CHECK_URL', value: 'http://127.0.0.1:15021/healthz/ready' }];
  await apply(namespace, objects);

  const { outcome } = await waitForJob(namespace, 'report-native');
  expect(outcome).toBe('Complete');
  const [pod] = await jobPods(namespace, 'report-native');
  if (pod === undefined) throw new Error('no pod');
  expect(pod.status.phase).toBe('Succeeded');

  const proxyStatus = status(pod, 'istio-proxy');
  const appStatus = status(pod, 'report');
  expect(proxyStatus.restartCount).toBe(0);
  expect(appStatus.state.terminated?.exitCode).toBe(0);
  // The sidecar was stopped by the kubelet (SIGTERM: the stand-in exits 0) after the app had exited.
  expect(proxyStatus.state.terminated?.exitCode).toBe(0);
  const appFinished = Date.parse(appStatus.state.terminated?.finishedAt ?? '');
  expect(Date.parse(proxyStatus.state.terminated?.finishedAt ?? '')).toBeGreaterThanOrEqual(appFinished);

  // The app started only once the proxy was ready (its own clock, in its log),
  // and its first request found it ready.
  const proxyLog = jsonLines(await logs(namespace, pod.metadata.name, 'istio-proxy'));
  const appLog = jsonLines(await logs(namespace, pod.metadata.name, 'report'));
  const ready = proxyLog.find((line) => line.event === 'ready');
  const started = appLog.filter((line) => line.job === 'report-job' && line.event === 'started');
  expect(ready).toBeDefined();
  expect(started[0]?.t).toBeGreaterThanOrEqual(ready?.t ?? Number.POSITIVE_INFINITY);
  expect(proxyLog.map((line) => line.event)).toContain('signal');
  // sidecar-init in the app container: PID 1 there, the init step and the job both checked the proxy, the job's code.
  const job_ = appLog
    .filter((line) => line.job === 'report-job')
    .map((line) => `${line.event}${line.argv?.length ? ` ${line.argv.join(' ')}` : ''}`);
  expect(job_).toEqual(['started --migrate', 'checked', 'done', 'started', 'checked', 'done']);
  const supervisor = appLog.filter((line) => line.name === 'sidecar-init');
  expect(supervisor.find((line) => line.event === 'starting')).toMatchObject({ mode: 'pid1' });
  expect(supervisor.at(-1)).toMatchObject({ event: 'exit', exitCode: 0 });
});

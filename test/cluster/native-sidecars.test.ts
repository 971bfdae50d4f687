import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { jsonLines } from '../pod/support/pod.ts';
import {
  apply,
  createNamespace,
  deleteNamespace,
  documents,
  execIn,
  jobPods,
  logs,
  status,
  waitFor,
  waitForJob,
} from './support/cluster.ts';
import { proxyGapApp } from './support/proxy-gap.ts';

// examples/k8s/job-native-sidecars.yaml in a real kubelet: the proxy an init
// container with restartPolicy: Always (KEP-753), which podman 4 cannot play.
// The kubelet must hold the app until the proxy's startupProbe passes, stop
// the proxy only after the app has exited, and report the pod Succeeded;
// sidecar-init runs inside the app container beside it, as its PID 1.

const EXAMPLE = fileURLToPath(new URL('../../examples/k8s/job-native-sidecars.yaml', import.meta.url));

interface Container {
  name: string;
  args?: string[];
  command?: string[];
  env?: { name: string; value: string }[];
}

function example(): { objects: Record<string, unknown>[]; proxy: Container; app: Container } {
  const objects = documents(readFileSync(EXAMPLE, 'utf8'));
  const job = objects.find((object) => object.kind === 'Job') as {
    spec: { template: { spec: { containers: Container[]; initContainers: Container[] } } };
  };
  const { containers, initContainers } = job.spec.template.spec;
  const proxy = initContainers.find((container) => container.name === 'istio-proxy');
  const app = containers.find((container) => container.name === 'report');
  if (proxy === undefined || app === undefined)
    throw new Error('job-native-sidecars.yaml: no istio-proxy init container or report container');
  return { objects, proxy, app };
}

let namespace: string | undefined;
afterEach(async () => {
  if (namespace !== undefined) await deleteNamespace(namespace);
  namespace = undefined;
});

test('the kubelet holds the app until the native sidecar’s startupProbe passes, stops the sidecar after it, the pod Succeeded', async () => {
  namespace = await createNamespace('native');
  const { objects, proxy, app } = example();
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

test('the kubelet restarts a native sidecar that quits while the app runs; the app sees it come back, the pod Succeeded', async () => {
  namespace = await createNamespace('native-restart');
  const ns = namespace;
  const { objects, proxy, app } = example();
  proxy.args = [...(proxy.args ?? []), '--standin-listen-all'];
  // The job, under sidecar-init as written: asks the proxy's ready endpoint
  // until it has seen it go and come back (exit 0), or for 120 s (exit 1).
  const command = app.command ?? [];
  app.command = [
    ...command.slice(0, command.indexOf('--') + 1),
    '/usr/bin/python3',
    '-c',
    proxyGapApp({ url: 'http://127.0.0.1:15021/healthz/ready', afterSigterm: false, giveUpSeconds: 120 }),
  ];
  await apply(ns, objects);

  const pod = await waitFor('the job to ask the proxy', 180_000, async () => {
    const [found] = await jobPods(ns, 'report-native');
    if (found === undefined || status(found, 'report').state.running === undefined) return undefined;
    const waiting = jsonLines(await logs(ns, found.metadata.name, 'report')).find((line) => line.app === 'gap' && line.event === 'waiting');
    return waiting === undefined ? undefined : found;
  });
  // The proxy quits on its own (SIGTERM from inside its container, where it is PID 1): exit 0, before the app is done.
  await execIn(ns, pod.metadata.name, 'istio-proxy', ['/usr/bin/python3', '-c', 'import os, signal; os.kill(1, signal.SIGTERM)']);

  const { outcome } = await waitForJob(ns, 'report-native');
  expect(outcome).toBe('Complete');
  const [done] = await jobPods(ns, 'report-native');
  if (done === undefined) throw new Error('no pod');
  expect(done.status.phase).toBe('Succeeded');
  const proxyStatus = status(done, 'istio-proxy');
  // Restarted once by the kubelet; its first run ended 0, its second was stopped after the app.
  expect(proxyStatus.restartCount).toBe(1);
  expect(proxyStatus.lastState?.terminated?.exitCode).toBe(0);
  expect(proxyStatus.state.terminated?.exitCode).toBe(0);
  expect(status(done, 'report').state.terminated?.exitCode).toBe(0);
  const appLog = jsonLines(await logs(ns, done.metadata.name, 'report'));
  expect(appLog.filter((line) => line.app === 'gap').map((line) => line.event)).toEqual(['started', 'waiting', 'proxy-lost', 'proxy-back']);
  expect(appLog.filter((line) => line.name === 'sidecar-init').at(-1)).toMatchObject({ event: 'exit', exitCode: 0 });
});

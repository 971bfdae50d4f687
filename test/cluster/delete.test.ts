import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { jsonLines } from '../pod/support/pod.ts';
import {
  apply,
  createNamespace,
  deleteNamespace,
  documents,
  followLogs,
  getJson,
  jobPods,
  KEEP_FINALIZER,
  kubectl,
  logs,
  type Pod,
  releasePods,
  status,
  waitFor,
} from './support/cluster.ts';

// `kubectl delete pod` mid-run, in a real kubelet, on
// examples/k8s/job-native-sidecars.yaml: the kubelet sends the app
// container's sidecar-init SIGTERM first, which forwards it to the job
// (docs/lifecycle.md), and stops the native sidecar only after the app
// container has exited, all within terminationGracePeriodSeconds. A finalizer
// of the test's own keeps the deleted pod readable until it has looked.

const EXAMPLE = fileURLToPath(new URL('../../examples/k8s/job-native-sidecars.yaml', import.meta.url));

interface Container {
  name: string;
  args?: string[];
  env?: { name: string; value: string }[];
}
interface Template {
  metadata: { finalizers?: string[] };
  spec: { containers: Container[]; initContainers: Container[]; terminationGracePeriodSeconds: number };
}

let namespace: string | undefined;
afterEach(async () => {
  if (namespace !== undefined) {
    await releasePods(namespace);
    await deleteNamespace(namespace);
  }
  namespace = undefined;
});

test('kubectl delete pod mid-run: the job gets SIGTERM through sidecar-init (143), the native sidecar is stopped after it, within the grace period', async () => {
  const ns = await createNamespace('delete');
  namespace = ns;
  const objects = documents(readFileSync(EXAMPLE, 'utf8'));
  const job = objects.find((object) => object.kind === 'Job') as { spec: { template: Template } };
  const { template } = job.spec;
  template.metadata.finalizers = [KEEP_FINALIZER];
  const app = template.spec.containers.find((container) => container.name === 'report');
  const sidecar = template.spec.initContainers.find((container) => container.name === 'istio-proxy');
  if (app === undefined || sidecar === undefined)
    throw new Error('job-native-sidecars.yaml: no report container or istio-proxy init container');
  // The job (not its --migrate init step) works for 10 minutes: it is deleted long before.
  app.env = [{ name: 'REPORT_JOB_SECONDS', value: '600' }];
  sidecar.args = [...(sidecar.args ?? []), '--standin-listen-all'];
  await apply(ns, objects);

  // The job is running: its "started" line (not the init step's) is in the log.
  const pod = await waitFor('the job to run', 180_000, async () => {
    const [found] = await jobPods(ns, 'report-native');
    if (found === undefined || status(found, 'report').state.running === undefined) return undefined;
    const started = jsonLines(await logs(ns, found.metadata.name, 'report')).filter(
      (line) => line.job === 'report-job' && line.event === 'started' && !line.argv?.length,
    );
    return started.length === 1 ? found : undefined;
  });
  const appLog = followLogs(ns, pod.metadata.name, 'report');
  const proxyLog = followLogs(ns, pod.metadata.name, 'istio-proxy');
  const deleted = Date.now();
  await kubectl(['delete', 'pod', pod.metadata.name, '-n', ns, '--wait=false']);

  const done = await waitFor('every container of the deleted pod to have terminated', 120_000, async () => {
    const current = await getJson<Pod>(['get', 'pod', pod.metadata.name, '-n', ns]);
    const all = [...(current.status.containerStatuses ?? []), ...(current.status.initContainerStatuses ?? [])];
    return all.every((entry) => entry.state.terminated !== undefined) ? current : undefined;
  });
  const report = status(done, 'report').state.terminated;
  const proxy = status(done, 'istio-proxy').state.terminated;
  // The job was killed by the SIGTERM sidecar-init forwarded: 128 + 15.
  expect(report?.exitCode).toBe(143);
  expect(proxy?.exitCode).toBe(0);
  // Within terminationGracePeriodSeconds (30 s; a second of the API's rounding).
  expect(Date.parse(proxy?.finishedAt ?? '')).toBeLessThanOrEqual(deleted + (template.spec.terminationGracePeriodSeconds + 1) * 1000);

  // The order, on the containers' own clocks: sidecar-init got SIGTERM and the
  // job exited before the kubelet signalled the native sidecar.
  const appLines = jsonLines((await appLog.ended).stdout);
  const proxyLines = jsonLines((await proxyLog.ended).stdout);
  const supervisor = appLines.filter((line) => line.name === 'sidecar-init');
  // The kubelet's SIGTERM began the teardown.
  expect(supervisor.find((line) => line.event === 'teardown')).toMatchObject({ reason: 'signal' });
  const exit = supervisor.find((line) => line.event === 'exit');
  expect(exit).toMatchObject({ exitCode: 143 });
  const proxySignal = proxyLines.find((line) => line.event === 'signal');
  expect(proxySignal).toMatchObject({ signal: 'SIGTERM' });
  expect(Date.parse(String(exit?.time))).toBeLessThanOrEqual(Number(proxySignal?.t));
}, 300_000);

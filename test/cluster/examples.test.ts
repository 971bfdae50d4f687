import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { apply, createNamespace, deleteNamespace, documents, jobPods, status, waitForJob } from './support/cluster.ts';

// Every Job in examples/k8s applied as written (the images are the tier's
// stand-ins under the manifests' own names), judged by what the API server
// reports: the Job's condition, the pod's phase, each container's final state.
// The app (test/pod/fixtures/report-job) exits with REPORT_JOB_EXIT.

const EXAMPLES = fileURLToPath(new URL('../../examples/k8s/', import.meta.url));
const APP = 'report';

interface Container {
  name: string;
  env?: { name: string; value?: string }[];
  restartPolicy?: string;
  args?: string[];
}
interface JobDocument {
  kind: string;
  metadata: { name: string };
  spec: { template: { spec: { containers: Container[]; initContainers?: Container[] } } };
}

/** The example's documents, the app's exit code set through its environment (nothing else changed). */
function example(file: string, exitCode: number): { objects: Record<string, unknown>[]; job: JobDocument } {
  const objects = documents(readFileSync(`${EXAMPLES}${file}`, 'utf8'));
  const job = objects.find((object) => object.kind === 'Job') as unknown as JobDocument;
  const app = job.spec.template.spec.containers.find((container) => container.name === APP);
  if (app === undefined) throw new Error(`${file}: no container ${APP}`);
  app.env = [
    ...(app.env ?? []).filter((variable) => variable.name !== 'REPORT_JOB_EXIT'),
    { name: 'REPORT_JOB_EXIT', value: String(exitCode) },
  ];
  // A native sidecar's startupProbe is the kubelet's, from the node: the stand-in must listen where it reaches, as Istio's health port does.
  for (const sidecar of job.spec.template.spec.initContainers ?? [])
    if (sidecar.restartPolicy === 'Always') sidecar.args = [...(sidecar.args ?? []), '--standin-listen-all'];
  return { objects, job };
}

let namespace: string | undefined;
afterEach(async () => {
  if (namespace !== undefined) await deleteNamespace(namespace);
  namespace = undefined;
});

const JOBS = [
  'job-istio-regular-sidecar.yaml',
  'job-linkerd.yaml',
  'job-cloud-sql-proxy.yaml',
  'job-separate-pid.yaml',
  'job-native-sidecars.yaml',
  'job-image-volume.yaml',
];

describe('the example Jobs in a real cluster', () => {
  test.each(JOBS.flatMap((file) => [[file, 0] as const, [file, 3] as const]))(
    '%s with the app exiting %i: the Job reports Complete (0) or Failed (3) with the app’s code, every container stopped',
    async (file, code) => {
      namespace = await createNamespace('example');
      const { objects, job } = example(file, code);
      await apply(namespace, objects);
      const { outcome, job: reported } = await waitForJob(namespace, job.metadata.name);
      expect(outcome).toBe(code === 0 ? 'Complete' : 'Failed');
      expect(code === 0 ? reported.status.succeeded : reported.status.failed).toBe(1);

      const pods = await jobPods(namespace, job.metadata.name);
      // backoffLimit: 0, restartPolicy: Never: one pod, never retried.
      expect(pods).toHaveLength(1);
      const [pod] = pods;
      if (pod === undefined) throw new Error('no pod');
      expect(pod.status.phase).toBe(code === 0 ? 'Succeeded' : 'Failed');
      const app = status(pod, APP);
      expect(app.state.terminated?.exitCode).toBe(code);
      expect(app.state.terminated?.reason).toBe(code === 0 ? 'Completed' : 'Error');
      expect(app.restartCount).toBe(0);
      // Nothing left running: every container, the proxies and native sidecars included, has terminated.
      const all = [...(pod.status.initContainerStatuses ?? []), ...(pod.status.containerStatuses ?? [])];
      for (const container of all)
        expect({ name: container.name, terminated: container.state.terminated !== undefined }).toEqual({
          name: container.name,
          terminated: true,
        });
      // The proxy (a sibling container, or a native sidecar the kubelet stopped) was stopped, not killed.
      const proxies = all.filter((container) => container.name !== APP && container.name !== 'sidecar-init');
      expect(proxies.length).toBeGreaterThan(0);
      for (const proxy of proxies)
        expect({ name: proxy.name, exitCode: proxy.state.terminated?.exitCode }).toEqual({ name: proxy.name, exitCode: 0 });
    },
  );
});

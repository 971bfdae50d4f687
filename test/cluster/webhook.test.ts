import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { VOLUME_IMAGE } from '../pod/support/images.ts';
import {
  apply,
  createNamespace,
  deleteNamespace,
  documents,
  getJson,
  jobPods,
  kubectl,
  status,
  waitFor,
  waitForJob,
} from './support/cluster.ts';

// examples/k8s/webhook/webhook.yaml deployed as written (its Namespace,
// Deployment of sidecar-init's own image, Service and
// MutatingWebhookConfiguration), the serving certificate made with openssl
// and its CA given as caBundle, as the docs say to without cert-manager. The
// real API server calls it for the Job of job-istio-before-injection.yaml,
// applies every patch it writes, and the pod it admits completes.

const EXAMPLES = fileURLToPath(new URL('../../examples/k8s/webhook/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'sidecar-init-cluster-webhook-'));

interface Named {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  webhooks?: { clientConfig: { caBundle?: string } }[];
}
interface PodSpec {
  initContainers?: { name: string }[];
  containers: { name: string; command?: string[] }[];
  volumes?: { name: string; image?: { reference: string }; emptyDir?: unknown }[];
}

beforeAll(async () => {
  const cert = join(work, 'tls.crt');
  const key = join(work, 'tls.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=sidecar-init-webhook.sidecar-init.svc',
      '-addext',
      'subjectAltName=DNS:sidecar-init-webhook.sidecar-init.svc,DNS:sidecar-init-webhook.sidecar-init.svc.cluster.local',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'pipe' },
  );
  const objects = documents(readFileSync(join(EXAMPLES, 'webhook.yaml'), 'utf8')) as unknown as Named[];
  const configuration = objects.find((object) => object.kind === 'MutatingWebhookConfiguration');
  for (const webhook of configuration?.webhooks ?? []) webhook.clientConfig.caBundle = readFileSync(cert).toString('base64');
  // The image-volume form needs the volume image named (docs/kubernetes.md, webhook).
  const deployment = objects.find((object) => object.kind === 'Deployment') as unknown as {
    spec: { template: { spec: { containers: { args: string[] }[] } } };
  };
  const [webhook] = deployment.spec.template.spec.containers;
  if (webhook === undefined) throw new Error('webhook.yaml: no container');
  webhook.args = [...webhook.args, '--volume-image', VOLUME_IMAGE];
  const namespace = objects.filter((object) => object.kind === 'Namespace');
  await apply('default', namespace);
  await kubectl(['create', 'secret', 'tls', 'sidecar-init-webhook-tls', '-n', 'sidecar-init', `--cert=${cert}`, `--key=${key}`]);
  await apply(
    'sidecar-init',
    objects.filter((object) => object.kind !== 'Namespace'),
  );
  await kubectl(['rollout', 'status', 'deployment/sidecar-init-webhook', '-n', 'sidecar-init', '--timeout=240s']);
});

afterAll(async () => {
  await kubectl(['delete', 'mutatingwebhookconfiguration', 'sidecar-init', '--ignore-not-found']);
  await deleteNamespace('sidecar-init');
  rmSync(work, { recursive: true, force: true });
});

let namespace: string | undefined;
afterEach(async () => {
  if (namespace !== undefined) await deleteNamespace(namespace);
  namespace = undefined;
});

function labelledJob(install?: string): Named[] {
  const objects = documents(readFileSync(join(EXAMPLES, 'job-istio-before-injection.yaml'), 'utf8')) as unknown as Named[];
  if (install !== undefined) {
    const job = objects.find((object) => object.kind === 'Job') as unknown as {
      spec: { template: { metadata: { annotations: Record<string, string> } } };
    };
    job.spec.template.metadata.annotations['sidecar-init.io/install'] = install;
  }
  return objects;
}

describe('the webhook deployed in the cluster', () => {
  test.each(['copy', 'image-volume'])(
    'injects a labelled Job in %s mode; the API server accepts the patch, the Job completes',
    async (install) => {
      namespace = await createNamespace('webhook');
      await apply(namespace, labelledJob(install));
      const { outcome } = await waitForJob(namespace, 'report-istio');
      const [pod] = await jobPods(namespace, 'report-istio');
      if (pod === undefined) throw new Error('no pod');
      const spec = (await getJson<{ spec: PodSpec }>(['get', 'pod', pod.metadata.name, '-n', namespace])).spec;
      const report = spec.containers.find((container) => container.name === 'report');
      expect(report?.command?.[0]).toBe('/opt/sidecar-init/sidecar-init');
      if (install === 'copy') {
        expect(spec.initContainers?.map((container) => container.name)).toContain('sidecar-init');
        expect(spec.volumes?.find((volume) => volume.emptyDir !== undefined)).toBeDefined();
      } else {
        expect(spec.initContainers ?? []).toEqual([]);
        expect(spec.volumes?.find((volume) => volume.image !== undefined)?.image?.reference).toBe(VOLUME_IMAGE);
      }
      expect(outcome).toBe('Complete');
      expect(pod.status.phase).toBe('Succeeded');
      expect(status(pod, 'report').state.terminated?.exitCode).toBe(0);
      expect(status(pod, 'istio-proxy').state.terminated?.exitCode).toBe(0);
    },
  );

  test('with the webhook down, failurePolicy: Ignore admits the pod as written', async () => {
    await kubectl(['scale', 'deployment/sidecar-init-webhook', '-n', 'sidecar-init', '--replicas=0']);
    try {
      await waitFor('the webhook pods to be gone', 120_000, async () => {
        const pods = await getJson<{ items: unknown[] }>(['get', 'pods', '-n', 'sidecar-init', '-l', 'app=sidecar-init-webhook']);
        return pods.items.length === 0 ? true : undefined;
      });
      namespace = await createNamespace('webhook-down');
      await apply(namespace, labelledJob());
      const pod = await waitFor('the Job’s pod to be admitted', 120_000, async () => (await jobPods(namespace ?? '', 'report-istio'))[0]);
      const spec = (await getJson<{ spec: PodSpec }>(['get', 'pod', pod.metadata.name, '-n', namespace])).spec;
      expect(spec.initContainers ?? []).toEqual([]);
      expect(spec.containers.find((container) => container.name === 'report')?.command).toEqual(['/app/report-job']);
    } finally {
      await kubectl(['scale', 'deployment/sidecar-init-webhook', '-n', 'sidecar-init', '--replicas=2']);
    }
  });
});

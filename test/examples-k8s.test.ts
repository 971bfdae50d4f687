import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  COPIED_EXECUTABLE,
  type Container,
  type Document,
  EXAMPLES_DIR,
  exampleFiles,
  IMAGE_VOLUME_EXAMPLE,
  INSTALL_IMAGE,
  type PodSpec,
  readExample,
  VOLUME_IMAGE,
} from './support/k8s-examples.ts';
import { validateAgainstSchema } from './support/k8s-schema.ts';
import { docPages, fencedBlocks, readPage } from './support/docs.ts';
import { runSupervisor } from './support/supervisor.ts';
import { besidesMissingPrograms } from './support/validate-output.ts';

// The Kubernetes manifests in examples/k8s/ are played as real pods by the
// container tier (npm run test:pod). Here, without podman: each document
// against the Kubernetes API schema of its kind, the rules the schema cannot
// express, and every sidecar-init command line and config file in them
// through `sidecar-init validate`.

/** Where sidecar-init is run from: copied in by the init container, or built into the image (one example). */
const BAKED_EXECUTABLE = '/usr/local/bin/sidecar-init';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const work = mkdtempSync(join(tmpdir(), 'sidecar-init-examples-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

const files = exampleFiles();
const workloads = files.filter((file) => !file.startsWith('webhook/') || file === 'webhook/job-istio-before-injection.yaml');

it('covers every example, the webhook’s included', () => {
  expect(files).toEqual(
    expect.arrayContaining([
      'job-istio-regular-sidecar.yaml',
      'deployment-istio.yaml',
      'webhook/webhook.yaml',
      'webhook/certificate.yaml',
      'webhook/job-istio-before-injection.yaml',
      IMAGE_VOLUME_EXAMPLE,
    ]),
  );
});

describe.each(files)('examples/k8s/%s', (file) => {
  const documents = readExample(file);

  it('opens with when to copy it and the lines to change, the sidecar-init image named as your build', () => {
    const text = readFileSync(join(EXAMPLES_DIR, file), 'utf8');
    const header = text.slice(0, text.search(/^[^#\n]/m));
    expect(header).toMatch(/^# Copy this (if|to|with) /);
    expect(header).toContain('\n# Change these lines:\n');
    // Every line naming the sidecar-init image says it is the user's own build, and where to make it.
    for (const line of text.split('\n').filter((line) => line.includes(INSTALL_IMAGE) || line.includes(VOLUME_IMAGE)))
      expect(line).toContain('# your build, pushed to your registry: docs/kubernetes.md, step 1');
    // A mesh's proxy may be injected as a native sidecar: each mesh example says how to tell.
    if (/istio|linkerd/.test(file)) expect(header).toContain("kubectl get pod POD -o jsonpath='{.spec.initContainers[*].name}'");
  });

  it('follows the Kubernetes API schema of each kind, and the rules it cannot express', () => {
    for (const document of documents) {
      expect(document.metadata.name).toMatch(DNS_LABEL);
      if (document.apiVersion === 'cert-manager.io/v1') continue;
      expect(() => validateAgainstSchema(document)).not.toThrow();
      const template = document.spec?.template;
      if (template === undefined) continue;
      checkPodRules(document, template.spec, documents);
      if (document.kind === 'Deployment')
        expect(template.metadata?.labels).toMatchObject(document.spec?.selector?.matchLabels ?? { missing: true });
    }
  });
});

describe.each(workloads)('examples/k8s/%s', (file) => {
  const documents = readExample(file);
  const pod = documents.find((document) => document.kind === 'Job' || document.kind === 'Deployment')?.spec?.template?.spec;

  it('locks the app container down: read-only root, not root, no privilege escalation, no capabilities', () => {
    const app = pod?.containers[0];
    expect(app?.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
  });

  it.skipIf(file.startsWith('webhook/'))(
    'runs sidecar-init with a valid configuration; externals found in /proc only where processes are shared',
    async () => {
      const app = pod?.containers.find((container) => [COPIED_EXECUTABLE, BAKED_EXECUTABLE].includes(container.command?.[0] ?? ''));
      expect(app).toBeDefined();
      if (app === undefined || pod === undefined) return;
      const args = [...(app.command ?? []).slice(1)];
      // A config file from a ConfigMap is validated from the ConfigMap's data.
      const configIndex = args.indexOf('-c');
      let config = join(work, `${file}.empty.yaml`);
      writeFileSync(config, 'processes: []\n');
      if (configIndex >= 0) {
        const mounted = args[configIndex + 1] ?? '';
        const configMaps = documents.filter((document) => document.kind === 'ConfigMap');
        const data = configMaps.flatMap((document) => Object.entries(document.data ?? {})).find(([key]) => mounted.endsWith(`/${key}`));
        expect(data).toBeDefined();
        config = join(work, `${file}.config.yaml`);
        writeFileSync(config, data?.[1] ?? '');
        args.splice(configIndex, 2);
      }
      const run = await runSupervisor(['validate', '-c', config, ...args]);
      // The image's programs are not on this machine: only the warnings that say so.
      expect(besidesMissingPrograms(run.stderr())).toEqual([]);
      expect(run.code).toBe(0);
      // An announced: external is another container's sidecar-init, known by its file: no shared namespace needed.
      const externals = Number(/ (\d+) externals?\b/.exec(run.stdout())?.[1] ?? 0);
      const announced = args.filter((arg) => /^[^=]+=announced:/.test(arg)).length;
      expect(pod.shareProcessNamespace === true).toBe(externals - announced > 0);
    },
  );

  it.skipIf(file.startsWith('webhook/') || file === 'deployment-istio.yaml' || file === IMAGE_VOLUME_EXAMPLE)(
    'copies sidecar-init in with the install init container, first, into an emptyDir the app mounts read-only',
    () => {
      const [install] = pod?.initContainers ?? [];
      expect(install).toMatchObject({ name: 'sidecar-init', image: INSTALL_IMAGE, args: ['install', '/opt/sidecar-init'] });
      expect(install?.volumeMounts).toEqual([{ name: 'sidecar-init', mountPath: '/opt/sidecar-init' }]);
      expect(pod?.volumes).toContainEqual({ name: 'sidecar-init', emptyDir: {} });
      const app = pod?.containers.find((container) => container.command?.[0] === COPIED_EXECUTABLE);
      expect(app?.volumeMounts).toContainEqual({ name: 'sidecar-init', mountPath: '/opt/sidecar-init', readOnly: true });
    },
  );
});

describe(`examples/k8s/${IMAGE_VOLUME_EXAMPLE}`, () => {
  const documents = readExample(IMAGE_VOLUME_EXAMPLE);
  const job = documents.find((document) => document.kind === 'Job');
  const pod = job?.spec?.template?.spec;

  it('runs sidecar-init from the volume image mounted read-only: no init container, no emptyDir, nothing copied', () => {
    expect(pod?.initContainers).toBeUndefined();
    expect(pod?.volumes).toEqual([{ name: 'sidecar-init', image: { reference: VOLUME_IMAGE, pullPolicy: 'IfNotPresent' } }]);
    const app = pod?.containers.find((container) => container.command?.[0] === COPIED_EXECUTABLE);
    expect(app?.volumeMounts).toEqual([{ name: 'sidecar-init', mountPath: '/opt/sidecar-init', readOnly: true }]);
    expect(JSON.stringify(documents)).not.toMatch(/emptyDir|"install"/);
  });

  it('is the cloud-sql-proxy Job with the image volume where the copy was: the same containers, the same command', () => {
    const copied = readExample('job-cloud-sql-proxy.yaml').find((document) => document.kind === 'Job')?.spec?.template?.spec;
    expect(pod?.containers.map(({ volumeMounts: _, ...container }) => container)).toEqual(
      copied?.containers.map(({ volumeMounts: _, ...container }) => container),
    );
  });

  it('is checked by a schema that knows image volumes: a reference that is not a string is refused', () => {
    const broken = structuredClone(job) as Document;
    const volume = broken.spec?.template?.spec.volumes?.[0] as unknown as { image: { reference: unknown } };
    volume.image.reference = 42;
    expect(() => validateAgainstSchema(broken)).toThrow(/reference/);
  });
});

/** What the Pod schema cannot say: names unique and DNS labels, references that resolve, restartPolicy where it is allowed. */
function checkPodRules(workload: Document, pod: PodSpec, documents: readonly Document[]): void {
  const all: Container[] = [...(pod.initContainers ?? []), ...pod.containers];
  expect(new Set(all.map((container) => container.name)).size).toBe(all.length);
  const volumes = (pod.volumes ?? []).map((volume) => volume.name);
  expect(new Set(volumes).size).toBe(volumes.length);
  for (const container of all) {
    expect(container.name).toMatch(DNS_LABEL);
    expect(container.image).toMatch(/^[a-z0-9.-]+(\/[a-z0-9._-]+)+:[\w.-]+$/);
    for (const mount of container.volumeMounts ?? []) expect(volumes).toContain(mount.name);
  }
  // restartPolicy on a container is only for init containers, and only Always (a native sidecar).
  for (const container of pod.containers) expect(container.restartPolicy).toBeUndefined();
  for (const container of pod.initContainers ?? []) expect(container.restartPolicy ?? 'Always').toBe('Always');
  if (workload.kind === 'Job') expect(['Never', 'OnFailure']).toContain(pod.restartPolicy);
  const names = documents.map((document) => document.metadata.name);
  for (const volume of pod.volumes ?? []) {
    const configMap = volume.configMap as { name?: string } | undefined;
    if (configMap !== undefined) expect(names).toContain(configMap.name);
  }
}

describe('the Kubernetes manifests in README.md and docs/', () => {
  const manifests = docPages().flatMap((page) =>
    fencedBlocks(readPage(page))
      .filter((block) => block.lang === 'yaml' && /^apiVersion:/m.test(block.body))
      .map((block) => ({
        at: `${page}:${block.line}`,
        documents: parseAllDocuments(block.body).map((parsed) => parsed.toJS() as Document),
      })),
  );

  it('are there: the README’s Job, the pods of docs/', () => {
    expect(manifests.map((manifest) => manifest.at)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^README\.md:/), expect.stringMatching(/^docs\/kubernetes\.md:/)]),
    );
  });

  it.each(manifests)('$at follows the API schema of its kind, and the rules it cannot express', ({ documents }) => {
    for (const document of documents) {
      expect(() => validateAgainstSchema(document)).not.toThrow();
      const pod = document.kind === 'Pod' ? (document.spec as unknown as PodSpec) : document.spec?.template?.spec;
      if (pod !== undefined) checkPodRules(document, pod, [document]);
    }
  });

  it.each(manifests)('$at runs sidecar-init with a valid command line', async ({ documents }) => {
    for (const document of documents) {
      const pod = document.kind === 'Pod' ? (document.spec as unknown as PodSpec) : document.spec?.template?.spec;
      for (const container of pod?.containers ?? []) {
        const [program, ...args] = container.command ?? [];
        // A command that is sidecar-init's own; a -c file lives in the pod, so only command lines without one are run here.
        if (program === undefined || !/(^|\/)sidecar-init$/.test(program) || args.includes('-c')) continue;
        const empty = join(work, 'docs-empty.yaml');
        writeFileSync(empty, 'processes: []\n');
        const run = await runSupervisor(['validate', '-c', empty, ...args]);
        // The image's programs are not on this machine: only the warnings that say so.
        expect(besidesMissingPrograms(run.stderr())).toEqual([]);
        expect(run.code).toBe(0);
      }
    }
  });
});

describe('examples/k8s/webhook/', () => {
  const documents = [...readExample('webhook/webhook.yaml'), ...readExample('webhook/certificate.yaml')];
  const find = (kind: string): unknown => documents.find((document) => document.kind === kind);

  it('never stands in the way of a pod: failurePolicy Ignore, a timeout, the label selector, CREATE of pods only, not its own namespace', () => {
    const configuration = find('MutatingWebhookConfiguration') as { webhooks: Record<string, unknown>[] };
    expect(configuration.webhooks).toHaveLength(1);
    expect(configuration.webhooks[0]).toMatchObject({
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: 'Ignore',
      objectSelector: { matchLabels: { 'sidecar-init.io/inject': 'true' } },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      namespaceSelector: {
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: expect.arrayContaining(['sidecar-init']) }],
      },
    });
    expect(configuration.webhooks[0]?.timeoutSeconds).toBeLessThanOrEqual(10);
  });

  it('fits together: the Service reaches the webhook’s port, the certificate names the Service and fills the Secret the webhook reads', () => {
    const deployment = find('Deployment') as {
      metadata: { namespace: string };
      spec: { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } };
    };
    const service = find('Service') as {
      metadata: { name: string; namespace: string };
      spec: { selector: Record<string, string>; ports: { port: number; targetPort: string }[] };
    };
    const configuration = find('MutatingWebhookConfiguration') as {
      metadata: { annotations: Record<string, string> };
      webhooks: { clientConfig: { service: Record<string, unknown> } }[];
    };
    const certificate = find('Certificate') as {
      metadata: { name: string; namespace: string };
      spec: { secretName: string; dnsNames: string[] };
    };
    const webhook = deployment.spec.template.spec.containers[0];
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    expect(webhook?.args?.slice(0, 1)).toEqual(['webhook']);
    expect(webhook?.image).toBe(INSTALL_IMAGE);
    expect(webhook?.args?.[webhook.args.indexOf('--image') + 1]).toBe(INSTALL_IMAGE);
    const ports = webhook?.ports as { name: string; containerPort: number }[];
    expect(ports.map((port) => port.name)).toContain(service.spec.ports[0]?.targetPort);
    expect(webhook?.args?.[webhook.args.indexOf('--addr') + 1]).toBe(`:${ports[0]?.containerPort}`);
    expect(configuration.webhooks[0]?.clientConfig.service).toEqual({
      name: service.metadata.name,
      namespace: service.metadata.namespace,
      path: '/mutate',
      port: service.spec.ports[0]?.port,
    });
    expect(certificate.spec.dnsNames).toContain(`${service.metadata.name}.${service.metadata.namespace}.svc`);
    expect(configuration.metadata.annotations['cert-manager.io/inject-ca-from']).toBe(
      `${certificate.metadata.namespace}/${certificate.metadata.name}`,
    );
    const secret = deployment.spec.template.spec.volumes?.find((volume) => volume.secret !== undefined)?.secret as { secretName: string };
    expect(secret.secretName).toBe(certificate.spec.secretName);
    expect(deployment.metadata.namespace).toBe(service.metadata.namespace);
  });
});

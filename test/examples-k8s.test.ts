import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runSupervisor } from './support/supervisor.ts';

// The Kubernetes manifests in examples/k8s/ are played as real pods by the
// container tier (npm run test:pod). Here, without podman: the rules of the
// Kubernetes API they must follow, and every sidecar-init command line and
// config file in them passes `sidecar-init validate`.

const DIR = new URL('../examples/k8s/', import.meta.url);
const SIDECAR_INIT = '/opt/sidecar-init/bin/sidecar-init';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const work = mkdtempSync(join(tmpdir(), 'sidecar-init-examples-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Container {
  name: string;
  image?: string;
  command?: string[];
  restartPolicy?: string;
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  restartPolicy?: string;
  shareProcessNamespace?: boolean;
  volumes?: { name: string; configMap?: { name: string } }[];
}
interface Document {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: {
    template?: { metadata?: { labels?: Record<string, string> }; spec: PodSpec };
    selector?: { matchLabels: Record<string, string> };
  };
}

const manifests = readdirSync(DIR).filter((file) => file.endsWith('.yaml'));

describe.each(manifests)('examples/k8s/%s', (file) => {
  const documents = parseAllDocuments(readFileSync(new URL(file, DIR), 'utf8')).map((document) => document.toJS() as Document);
  const workload = documents.find((document) => document.kind !== 'ConfigMap');
  const pod = workload?.spec?.template?.spec;

  it('follows the Kubernetes API rules its kind has', () => {
    for (const document of documents) {
      expect(`${document.apiVersion} ${document.kind}`).toMatch(/^(v1 ConfigMap|batch\/v1 Job|apps\/v1 Deployment)$/);
      expect(document.metadata.name).toMatch(DNS_LABEL);
    }
    expect(pod).toBeDefined();
    if (pod === undefined || workload === undefined) return;
    const all = [...(pod.initContainers ?? []), ...pod.containers];
    expect(new Set(all.map((container) => container.name)).size).toBe(all.length);
    for (const container of all) {
      expect(container.name).toMatch(DNS_LABEL);
      expect(container.image).toMatch(/^[a-z0-9.-]+(\/[a-z0-9._-]+)+:[\w.-]+$/);
    }
    // restartPolicy on a container is only for init containers, and only Always (a native sidecar).
    for (const container of pod.containers) expect(container.restartPolicy).toBeUndefined();
    for (const container of pod.initContainers ?? []) expect(container.restartPolicy ?? 'Always').toBe('Always');
    if (workload.kind === 'Job') expect(['Never', 'OnFailure']).toContain(pod.restartPolicy);
    if (workload.kind === 'Deployment') {
      expect(workload.spec?.template?.metadata?.labels).toMatchObject(workload.spec?.selector?.matchLabels ?? { missing: true });
    }
    for (const volume of pod.volumes ?? []) {
      if (volume.configMap !== undefined) expect(documents.map((document) => document.metadata.name)).toContain(volume.configMap.name);
    }
  });

  it('runs sidecar-init with a valid configuration; externals only where processes are shared', async () => {
    const app = pod?.containers.find((container) => container.command?.[0] === SIDECAR_INIT);
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
    expect(run.stderr()).toBe('');
    expect(run.code).toBe(0);
    const usesExternals = / [1-9]\d* externals/.test(run.stdout());
    expect(pod.shareProcessNamespace === true).toBe(usesExternals);
  });
});

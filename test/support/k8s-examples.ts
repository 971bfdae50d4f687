import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

// The manifests in examples/k8s/ as data, and the pod a user writes for the
// webhook, recovered from a copy-in example: what the webhook must turn back
// into that example.

export const EXAMPLES_DIR = fileURLToPath(new URL('../../examples/k8s/', import.meta.url));
/** Where the install init container puts sidecar-init, and the app container runs it from. */
export const COPIED_EXECUTABLE = '/opt/sidecar-init/sidecar-init';
export const INSTALL_IMAGE = 'registry.example.com/tools/sidecar-init:0.1.0';
/** The Dockerfile's `volume` target, mounted as an image volume where the init container would copy (one example). */
export const VOLUME_IMAGE = 'registry.example.com/tools/sidecar-init-volume:0.1.0';
export const IMAGE_VOLUME_EXAMPLE = 'job-image-volume.yaml';

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  restartPolicy?: string;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  securityContext?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  restartPolicy?: string;
  shareProcessNamespace?: boolean;
  volumes?: ({ name: string } & Record<string, unknown>)[];
  [key: string]: unknown;
}

export interface PodTemplate {
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}

export interface Document {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec?: { template?: PodTemplate; selector?: { matchLabels?: Record<string, string> } } & Record<string, unknown>;
  [key: string]: unknown;
}

/** Every manifest under examples/k8s/, as paths relative to it (webhook/… included). */
export function exampleFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? walk(join(dir, entry.name))
        : entry.name.endsWith('.yaml')
          ? [relative(EXAMPLES_DIR, join(dir, entry.name))]
          : [],
    );
  return walk(EXAMPLES_DIR).sort();
}

export function readExample(file: string): Document[] {
  return parseAllDocuments(readFileSync(join(EXAMPLES_DIR, file), 'utf8')).map((document) => document.toJS() as Document);
}

/** The pod template of a file's one Job or Deployment. */
export function exampleTemplate(file: string): PodTemplate {
  const workload = readExample(file).find((document) => document.kind === 'Job' || document.kind === 'Deployment');
  if (workload?.spec?.template === undefined) throw new Error(`${file}: no Job or Deployment`);
  return structuredClone(workload.spec.template);
}

/** A copy-in example runs sidecar-init from the emptyDir its init container fills. */
export function isCopyIn(template: PodTemplate): boolean {
  return template.spec.containers.some((container) => container.command?.[0] === COPIED_EXECUTABLE);
}

/**
 * The pod as a user writes it for the webhook, from a copy-in example: no
 * install init container, no emptyDir, the app's own command, the inject label
 * and annotation, sidecar-init's flags in the args annotation (less the
 * externals the webhook adds itself, for the proxy containers it finds).
 */
export function withoutInjection(template: PodTemplate, proxies: Readonly<Record<string, string>>): PodTemplate {
  const pod = structuredClone(template);
  const app = pod.spec.containers.find((container) => container.command?.[0] === COPIED_EXECUTABLE);
  if (app?.command === undefined) throw new Error('not a copy-in example');
  const separator = app.command.indexOf('--');
  const flags = app.command.slice(1, separator);
  const own: string[] = [];
  for (let i = 0; i < flags.length; i += 1) {
    const [name, preset] = (flags[i + 1] ?? '').split('=');
    if (flags[i] === '--external' && name !== undefined && proxies[name] === preset) i += 1;
    else own.push(flags[i] ?? '');
  }
  app.command = app.command.slice(separator + 1);
  app.volumeMounts = app.volumeMounts?.filter((mount) => mount.name !== 'sidecar-init');
  if (app.volumeMounts?.length === 0) delete app.volumeMounts;
  pod.spec.initContainers = pod.spec.initContainers?.filter((container) => container.name !== 'sidecar-init');
  if (pod.spec.initContainers?.length === 0) delete pod.spec.initContainers;
  pod.spec.volumes = pod.spec.volumes?.filter((volume) => volume.name !== 'sidecar-init');
  if (pod.spec.volumes?.length === 0) delete pod.spec.volumes;
  // The webhook shares the process namespace whenever an external needs it.
  delete pod.spec.shareProcessNamespace;
  pod.metadata = {
    ...pod.metadata,
    labels: { ...pod.metadata?.labels, 'sidecar-init.io/inject': 'true' },
    annotations: {
      ...pod.metadata?.annotations,
      'sidecar-init.io/inject': 'true',
      ...(own.length > 0 ? { 'sidecar-init.io/args': JSON.stringify(own) } : {}),
    },
  };
  return pod;
}

import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';
import { podman, run } from './podman.ts';

// Plays the example manifests as the kubelet would run their pods, with what
// podman 4 lacks done here: `podman kube play` knows Pods and Deployments but
// not Jobs, so a Job's pod template is played as a Pod (named like the pods a
// Job controller creates); and it runs every init container to completion
// first, so native sidecars (init containers with restartPolicy: Always) are
// started here in the kubelet's order instead (see playNativeSidecars). podman
// 4 refuses image volumes (KEP-4639) too: see imageVolumesAsHostPaths.

const EXAMPLES = fileURLToPath(new URL('../../../examples/k8s/', import.meta.url));

export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly [key: string]: unknown;
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  restartPolicy?: string;
  startupProbe?: { httpGet?: { path: string; port: number } };
  volumeMounts?: unknown[];
  securityContext?: { runAsUser?: number; runAsGroup?: number; [key: string]: unknown };
  [key: string]: unknown;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  restartPolicy?: string;
  shareProcessNamespace?: boolean;
  terminationGracePeriodSeconds?: number;
  volumes?: unknown[];
  [key: string]: unknown;
}

export interface ConfigMapDocument {
  readonly apiVersion: 'v1';
  readonly kind: 'ConfigMap';
  readonly metadata: { readonly name: string };
  readonly data: Record<string, string>;
}

export interface Workload {
  readonly kind: string;
  readonly name: string;
  /** The pod template (a copy: change it freely before playing). */
  readonly spec: PodSpec;
  readonly labels: Record<string, string>;
  /** The ConfigMaps of the file, played along (add more freely). */
  readonly configMaps: ConfigMapDocument[];
}

interface Template {
  readonly metadata?: { readonly name?: string; readonly labels?: Record<string, string> };
  readonly spec: PodSpec;
}

/** The fields of a manifest document this harness reads. */
interface ManifestDocument {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string> };
  readonly spec: PodSpec & { readonly template?: Template };
}

/** Reads examples/k8s/FILE: its one workload (Job, Deployment or Pod) and the documents beside it. */
export function loadWorkload(file: string): Workload {
  const documents = parseAllDocuments(readFileSync(join(EXAMPLES, file), 'utf8')).map((document) => document.toJS() as ManifestDocument);
  const workloads = documents.filter((document) => ['Job', 'Deployment', 'Pod'].includes(document.kind));
  const [workload] = workloads;
  if (workload === undefined || workloads.length !== 1)
    throw new Error(`${file}: expected one Job, Deployment or Pod, found ${workloads.length}`);
  const template: Template = workload.kind === 'Pod' ? workload : (workload.spec.template as Template);
  return {
    kind: workload.kind,
    name: workload.metadata.name,
    spec: structuredClone(template.spec),
    labels: { ...(template.metadata?.labels ?? {}) },
    configMaps: documents.filter((document) => document.kind === 'ConfigMap') as unknown as ConfigMapDocument[],
  };
}

/**
 * Gives one container a sidecar-init config file, as a user would: a ConfigMap
 * mounted at /etc/sidecar-init. Returns the file's path.
 */
export function mountConfig(workload: Workload, name: string, yaml: string): string {
  const configMap = `${name}-sidecar-init`;
  workload.configMaps.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: configMap }, data: { 'sidecar-init.yaml': yaml } });
  const volumes = (workload.spec.volumes ?? []) as unknown[];
  workload.spec.volumes = [...volumes, { name: 'sidecar-init-config', configMap: { name: configMap } }];
  const target = container(workload.spec, name);
  const mounts = (target.volumeMounts ?? []) as unknown[];
  target.volumeMounts = [...mounts, { name: 'sidecar-init-config', mountPath: '/etc/sidecar-init', readOnly: true }];
  return '/etc/sidecar-init/sidecar-init.yaml';
}

export function container(spec: PodSpec, name: string): Container {
  const found = [...spec.containers, ...(spec.initContainers ?? [])].find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no container ${name} in the pod`);
  return found;
}

/** Sets (or replaces) environment variables of one container. */
export function setEnv(spec: PodSpec, name: string, env: Record<string, string>): void {
  const target = container(spec, name);
  const kept = (target.env ?? []).filter((variable) => !(variable.name in env));
  target.env = [...kept, ...Object.entries(env).map(([key, value]) => ({ name: key, value }))];
}

export interface ContainerState {
  readonly name: string;
  readonly running: boolean;
  readonly exitCode: number;
  readonly startedAt: number;
  readonly finishedAt: number;
}

export interface PlayedPod {
  readonly name: string;
  /** podman's name for a container of this pod. */
  containerName(name: string): string;
  /** Resolves with the exit code once the container has exited. */
  waitForExit(name: string, timeoutMs?: number): Promise<number>;
  /** Resolves once every container of the pod has exited (the pod is complete), with their states. */
  waitForCompletion(timeoutMs?: number): Promise<ContainerState[]>;
  state(name: string): Promise<ContainerState>;
  logs(name: string): Promise<string>;
  /** How podman ran the container: a read-only root, and as which user. */
  confinement(name: string): Promise<{ readonly readOnlyRoot: boolean; readonly user: string }>;
  /** The kubelet's way of stopping a pod: SIGTERM to every container at once, SIGKILL to what is left after `seconds`. */
  stopAll(seconds: number): Promise<void>;
  /** podman pod rm -f: for afterEach. */
  remove(): Promise<void>;
}

const played: PlayedPod[] = [];

/** Plays the workload as one pod with a private network namespace (`--network none`: loopback only). */
export async function playPod(workload: Workload, options: { readonly start?: boolean } = {}): Promise<PlayedPod> {
  const name = `${workload.name}-${randomBytes(3).toString('hex')}`;
  // podman keeps a ConfigMap as a named volume after the pod is gone: give
  // each its pod's suffix, so plays never share one, and remove them with it.
  const renamed = new Map(workload.configMaps.map((configMap) => [configMap.metadata.name, `${configMap.metadata.name}-${name}`]));
  const spec = structuredClone(workload.spec);
  for (const volume of (spec.volumes ?? []) as { configMap?: { name: string } }[]) {
    if (volume.configMap !== undefined) volume.configMap.name = renamed.get(volume.configMap.name) ?? volume.configMap.name;
  }
  const configMaps = workload.configMaps.map((configMap) => ({ ...configMap, metadata: { name: renamed.get(configMap.metadata.name) } }));
  const mountedImages = await imageVolumesAsHostPaths(spec);
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { ...workload.labels, 'sidecar-init-test': 'true' } },
    spec: { restartPolicy: 'Never', ...spec },
  };
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-pod-'));
  const file = join(dir, 'pod.yaml');
  writeFileSync(file, [...configMaps, pod].map((document) => stringify(document)).join('---\n'));
  const result = createPlayedPod(
    name,
    pod.spec.containers.map((entry: Container) => entry.name),
    [...renamed.values()],
    mountedImages,
  );
  played.push(result);
  try {
    await podman(['kube', 'play', '--network', 'none', `--start=${options.start !== false}`, file], 180_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

/**
 * Init containers as the kubelet (KEP-753) runs them, which podman 4 does not
 * when native sidecars are among them: in order, an ordinary init container
 * runs to completion (exit 0) before the next starts, a native sidecar (an
 * init container with restartPolicy: Always) is started and waited for until
 * its startupProbe passes; then the containers start; once they have all
 * exited, the test stops the sidecars.
 */
export async function playNativeSidecars(workload: Workload): Promise<{ pod: PlayedPod; sidecars: string[] }> {
  const spec = structuredClone(workload.spec);
  const inits = spec.initContainers ?? [];
  const sidecars = inits.filter((entry) => entry.restartPolicy === 'Always').map((entry) => entry.name);
  const probes = new Map(inits.map((entry) => [entry.name, entry.startupProbe]));
  for (const entry of inits) delete entry.restartPolicy;
  spec.containers = [...inits, ...spec.containers];
  delete spec.initContainers;
  const pod = await playPod({ ...workload, spec }, { start: false });
  // Starting a container of a pod starts its infra container first.
  for (const entry of inits) {
    await podman(['start', pod.containerName(entry.name)]);
    if (!sidecars.includes(entry.name)) {
      const code = await pod.waitForExit(entry.name);
      if (code !== 0) throw new Error(`init container ${entry.name} exited ${code}: ${await pod.logs(entry.name)}`);
      continue;
    }
    const probe = probes.get(entry.name)?.httpGet;
    if (probe !== undefined) await waitForHttp(pod, entry.name, `http://127.0.0.1:${probe.port}${probe.path}`);
  }
  const main = spec.containers.slice(inits.length).map((entry) => pod.containerName(entry.name));
  await podman(['start', ...main]);
  return { pod, sidecars };
}

/** The kubelet's startupProbe, run inside the pod's network namespace (through the sidecar's own Python). */
async function waitForHttp(pod: PlayedPod, via: string, url: string, timeoutMs = 60_000): Promise<void> {
  const script = `import sys, time, urllib.request
deadline = time.time() + ${timeoutMs / 1000}
while time.time() < deadline:
    try:
        if urllib.request.urlopen(${JSON.stringify(url)}, timeout=1).status < 400: sys.exit(0)
    except Exception:
        pass
    time.sleep(0.1)
sys.exit(1)`;
  await podman(['exec', pod.containerName(via), 'python3', '-c', script], timeoutMs + 30_000);
}

/**
 * An image volume as the kubelet gives it, for podman 4's `kube play`, which
 * knows only hostPath, configMap, emptyDir and PVC volumes: the image's root
 * from `podman image mount` (its layers, mounted read-only by the storage
 * driver, not noexec), as a hostPath. The container sees what it would in
 * Kubernetes: the image's own files, the same bytes, read-only (the mount and
 * the pod's readOnly: true) and executable, and nothing is copied or written
 * at pod start. Returns the images mounted, to unmount with the pod.
 */
async function imageVolumesAsHostPaths(spec: PodSpec): Promise<string[]> {
  const images: string[] = [];
  for (const volume of (spec.volumes ?? []) as { image?: { reference: string }; hostPath?: unknown }[]) {
    if (volume.image === undefined) continue;
    const path = (await podman(['image', 'mount', volume.image.reference])).trim();
    images.push(volume.image.reference);
    delete volume.image;
    volume.hostPath = { path, type: 'Directory' };
  }
  return images;
}

function createPlayedPod(
  name: string,
  containers: readonly string[],
  volumes: readonly string[],
  images: readonly string[] = [],
): PlayedPod {
  const containerName = (entry: string) => `${name}-${entry}`;
  const state = async (entry: string): Promise<ContainerState> => {
    const [inspected] = JSON.parse(await podman(['inspect', containerName(entry)])) as {
      State: { Running: boolean; ExitCode: number; StartedAt: string; FinishedAt: string };
    }[];
    if (inspected === undefined) throw new Error(`podman inspect ${containerName(entry)}: nothing`);
    const current = inspected.State;
    return {
      name: entry,
      running: current.Running,
      exitCode: current.ExitCode,
      startedAt: Date.parse(current.StartedAt),
      finishedAt: Date.parse(current.FinishedAt),
    };
  };
  const waitForExit = async (entry: string, timeoutMs = 90_000): Promise<number> => {
    const result = await run('podman', ['wait', containerName(entry)], timeoutMs);
    if (result.code !== 0) throw new Error(`podman wait ${containerName(entry)}: ${result.stderr.trim() || 'timed out'}`);
    return Number(result.stdout.trim());
  };
  return {
    name,
    containerName,
    waitForExit,
    async waitForCompletion(timeoutMs = 90_000) {
      await Promise.all(containers.map((entry) => waitForExit(entry, timeoutMs)));
      return Promise.all(containers.map(state));
    },
    state,
    async confinement(entry) {
      const [inspected] = JSON.parse(await podman(['inspect', containerName(entry)])) as {
        HostConfig: { ReadonlyRootfs: boolean };
        Config: { User: string };
      }[];
      if (inspected === undefined) throw new Error(`podman inspect ${containerName(entry)}: nothing`);
      return { readOnlyRoot: inspected.HostConfig.ReadonlyRootfs, user: inspected.Config.User };
    },
    logs: async (entry) => {
      const result = await run('podman', ['logs', containerName(entry)]);
      return result.stdout + result.stderr;
    },
    async stopAll(seconds) {
      // As the kubelet does: SIGTERM to every container at once, SIGKILL to what is left after
      // `seconds`. Not `podman stop`: for a container in a shared PID namespace podman 4 follows
      // its SIGTERM with a second one and SIGKILL about 50 ms later (seen with strace here), far
      // inside the grace period, which would judge podman's timing instead of sidecar-init.
      // (A container that has already exited refuses the signal; that is not an error here.)
      await run('podman', ['kill', '--signal', 'SIGTERM', ...containers.map(containerName)]);
      const exited = await Promise.all(containers.map((entry) => run('podman', ['wait', containerName(entry)], seconds * 1000)));
      const left = containers.filter((_, index) => exited[index]?.code !== 0);
      if (left.length > 0) await run('podman', ['kill', '--signal', 'SIGKILL', ...left.map(containerName)]);
    },
    async remove() {
      await run('podman', ['pod', 'rm', '--force', '--time', '0', name]);
      if (volumes.length > 0) await run('podman', ['volume', 'rm', '--force', ...volumes]);
      for (const image of images) await run('podman', ['image', 'unmount', image]);
    },
  };
}

/** afterEach: removes every pod played (and its containers), whatever state it is in. */
export async function removePods(): Promise<void> {
  for (const pod of played.splice(0)) await pod.remove();
}

/** One JSON line of a container's log: sidecar-init's (name, event, proc), the stand-in's (proxy, event, t) or the job's (job, event, t). */
export interface JsonLine {
  readonly event?: string;
  readonly name?: string;
  readonly proxy?: string;
  readonly job?: string;
  readonly proc?: string;
  readonly msg?: string;
  readonly t?: number;
  readonly time?: string;
  readonly argv?: string[];
  readonly [field: string]: unknown;
}

/** Parses the JSON lines of a container's log; other lines are skipped. */
export function jsonLines(log: string): JsonLine[] {
  const lines: JsonLine[] = [];
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line));
    } catch {
      // a line that only looks like JSON
    }
  }
  return lines;
}

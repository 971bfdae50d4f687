import type { PresetName } from '../plan/presets.ts';
import type { JsonRecord } from './pod-fields.ts';

// Proxies that other webhooks or people put in a pod, recognised by the
// container's name or its image, each mapped to the preset that finds, waits
// for and stops it (src/plan/presets.ts). Names are the ones the
// injectors give their containers; images are matched on the last part of the
// repository path, without registry, tag or digest, so mirrors match too.

interface ProxyPattern {
  readonly preset: PresetName;
  /** Container names, exactly. */
  readonly names: readonly string[];
  /** The image repository path ends with one of these (after a "/" or as the whole path). */
  readonly images: readonly string[];
}

const PROXIES: readonly ProxyPattern[] = [
  // Istio's sidecar injector names its container istio-proxy; the image is istio/proxyv2.
  { preset: 'istio', names: ['istio-proxy'], images: ['istio/proxyv2'] },
  // Linkerd's proxy injector: container linkerd-proxy, image cr.l5d.io/linkerd/proxy.
  { preset: 'linkerd', names: ['linkerd-proxy'], images: ['linkerd/proxy'] },
  // Envoy on its own (Kuma's kuma-sidecar runs Envoy too, but through kuma-dp, which the preset does not match).
  { preset: 'envoy', names: ['envoy'], images: ['envoyproxy/envoy'] },
  // Google's Cloud SQL Auth Proxy v2 (gcr.io/cloud-sql-connectors/cloud-sql-proxy).
  { preset: 'cloud-sql-proxy', names: ['cloud-sql-proxy'], images: ['cloud-sql-proxy'] },
  // AlloyDB Auth Proxy (gcr.io/alloydb-connectors/alloydb-auth-proxy).
  { preset: 'alloydb-auth-proxy', names: ['alloydb-auth-proxy'], images: ['alloydb-auth-proxy'] },
  // Dapr's sidecar injector: container daprd, image daprio/daprd.
  { preset: 'dapr', names: ['daprd'], images: ['daprd'] },
  // Consul on Kubernetes' connect injector: container consul-dataplane, image hashicorp/consul-dataplane.
  { preset: 'consul-dataplane', names: ['consul-dataplane'], images: ['consul-dataplane'] },
  // The OpenTelemetry operator's sidecar is otc-container; the collector images are opentelemetry-collector(-contrib, -k8s).
  {
    preset: 'otel-collector',
    names: ['otc-container', 'otel-collector'],
    images: ['opentelemetry-collector', 'opentelemetry-collector-contrib', 'opentelemetry-collector-k8s'],
  },
];

export interface DetectedProxy {
  /** The container's name: also the external's name, a DNS label like a process name. */
  readonly container: string;
  readonly preset: PresetName;
  /** An init container with restartPolicy: Always, which the kubelet starts first and stops last. */
  readonly nativeSidecar: boolean;
}

/** The proxies among the pod's containers and init containers, in pod order (init containers first). */
export function detectProxies(containers: readonly JsonRecord[], initContainers: readonly JsonRecord[]): DetectedProxy[] {
  const found: DetectedProxy[] = [];
  for (const [list, init] of [
    [initContainers, true],
    [containers, false],
  ] as const) {
    for (const container of list) {
      const name = typeof container.name === 'string' ? container.name : '';
      const image = typeof container.image === 'string' ? imageRepository(container.image) : '';
      const proxy = PROXIES.find((pattern) => pattern.names.includes(name) || pattern.images.some((suffix) => endsWithPath(image, suffix)));
      if (proxy === undefined) continue;
      const nativeSidecar = init && container.restartPolicy === 'Always';
      // An ordinary init container runs to completion before the app: nothing to wait for or stop.
      if (init && !nativeSidecar) continue;
      found.push({ container: name, preset: proxy.preset, nativeSidecar });
    }
  }
  return found;
}

/** docker.io/istio/proxyv2:1.24.2@sha256:… → istio/proxyv2 (the registry is kept; only the end is compared). */
export function imageRepository(image: string): string {
  const withoutDigest = image.split('@')[0] ?? '';
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.indexOf(':', lastSlash + 1);
  return colon < 0 ? withoutDigest : withoutDigest.slice(0, colon);
}

function endsWithPath(repository: string, suffix: string): boolean {
  return repository === suffix || repository.endsWith(`/${suffix}`);
}

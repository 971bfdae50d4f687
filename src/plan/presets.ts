// What sidecar-init knows about the proxies users most often wait for and stop
// from a sibling container. Each fact is from the proxy's own sources and docs;
// `needs` says what the proxy must be run with for the endpoints to exist, and
// is what the table of docs/externals.md shows. A user's own fields override a preset's
// (readiness fields one by one).

export type PresetName =
  | 'istio'
  | 'linkerd'
  | 'envoy'
  | 'cloud-sql-proxy'
  | 'alloydb-auth-proxy'
  | 'dapr'
  | 'consul-dataplane'
  | 'otel-collector';

export interface PresetMatch {
  /** Exact /proc/PID/comm (at most 15 bytes). */
  readonly comm?: string;
  /** A regular expression over the space-joined cmdline. */
  readonly cmdline?: string;
}

export interface ExternalPreset {
  readonly name: PresetName;
  readonly match: PresetMatch;
  /** An http:// readiness probe (GET; 2xx passes). */
  readonly ready: string;
  /** POSTed at teardown; absent means a signal stops it. */
  readonly quitUrl?: string;
  /** Logged when quitUrl answers 404. */
  readonly notFoundHint?: string;
  /** What the proxy must be configured with for `ready` and `quitUrl` to answer. */
  readonly needs: string;
}

const CLOUD_SQL_NEEDS =
  'run with `--health-check` (serves /startup on 9090) and `--quitquitquit` (serves the quit endpoint on 9091; exits 0)';

export const PRESETS: Readonly<Record<PresetName, ExternalPreset>> = {
  istio: {
    name: 'istio',
    // pilot-agent runs envoy as its child and stops it when it quits.
    match: { comm: 'pilot-agent' },
    // 503 until Envoy has received its configuration.
    ready: 'http://127.0.0.1:15021/healthz/ready',
    // Loopback only, POST only (other methods 405); skips the drain.
    quitUrl: 'http://127.0.0.1:15020/quitquitquit',
    needs: 'nothing: pilot-agent always serves both on loopback',
  },
  linkerd: {
    name: 'linkerd',
    match: { cmdline: 'linkerd2-proxy' },
    ready: 'http://127.0.0.1:4191/ready',
    quitUrl: 'http://127.0.0.1:4191/shutdown',
    notFoundHint:
      'the proxy serves /shutdown only with LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED=true: annotate the pod config.linkerd.io/proxy-admin-shutdown: enabled',
    needs:
      'the pod annotation `config.linkerd.io/proxy-admin-shutdown: enabled` (sets `LINKERD2_PROXY_SHUTDOWN_ENDPOINT_ENABLED=true`); without it /shutdown answers 404 and sidecar-init falls back to SIGTERM',
  },
  envoy: {
    name: 'envoy',
    match: { comm: 'envoy' },
    ready: 'http://127.0.0.1:9901/ready',
    quitUrl: 'http://127.0.0.1:9901/quitquitquit',
    needs:
      'its admin listener on 127.0.0.1:9901 (Kuma uses 9901; Istio 15000 and Consul 19000: override `readiness.probe` and `stop.http`)',
  },
  'cloud-sql-proxy': {
    name: 'cloud-sql-proxy',
    match: { comm: 'cloud-sql-proxy' },
    // Not /readiness: it also fails while max connections are reached.
    ready: 'http://127.0.0.1:9090/startup',
    quitUrl: 'http://127.0.0.1:9091/quitquitquit',
    needs: CLOUD_SQL_NEEDS,
  },
  'alloydb-auth-proxy': {
    name: 'alloydb-auth-proxy',
    // 18 characters: its comm is cut to alloydb-auth-pr, so match the cmdline.
    match: { cmdline: 'alloydb-auth-proxy' },
    ready: 'http://127.0.0.1:9090/startup',
    quitUrl: 'http://127.0.0.1:9091/quitquitquit',
    needs: CLOUD_SQL_NEEDS,
  },
  dapr: {
    name: 'dapr',
    match: { comm: 'daprd' },
    // Not /v1.0/healthz: it waits for the app, which waits for daprd: a deadlock.
    ready: 'http://127.0.0.1:3500/v1.0/healthz/outbound',
    quitUrl: 'http://127.0.0.1:3500/v1.0/shutdown',
    needs: 'nothing: daprd serves both on its HTTP port 3500 (`dapr.io/http-port` if changed)',
  },
  'consul-dataplane': {
    name: 'consul-dataplane',
    match: { cmdline: 'consul-dataplane' },
    ready: 'http://127.0.0.1:19000/ready',
    quitUrl: 'http://127.0.0.1:20600/graceful_shutdown',
    needs: 'its graceful shutdown port 20600 (`-graceful-port`, the default with Consul on Kubernetes)',
  },
  'otel-collector': {
    name: 'otel-collector',
    match: { cmdline: 'otelcol' },
    ready: 'http://127.0.0.1:13133/',
    needs:
      'the `health_check` extension enabled (serves 13133); it has no quit endpoint, so it is stopped with SIGTERM (same UID or CAP_KILL needed)',
  },
};

export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}

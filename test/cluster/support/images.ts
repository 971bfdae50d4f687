import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  APP_IMAGE,
  BAKED_IMAGE,
  buildImages,
  NO_GLIBC_APP_IMAGE,
  PROXY_IMAGES,
  SIDECAR_INIT_IMAGE,
  STANDIN_LABEL,
  VOLUME_IMAGE,
} from '../../pod/support/images.ts';
import { podman, run } from '../../pod/support/podman.ts';

// The cluster tier's images: the pod tier's (test/pod/support/images.ts: the
// Dockerfile's targets and the examples' stand-ins, built with podman from
// Debian packages and this checkout) and the pod sandbox's pause, each saved
// as an OCI archive and imported into containerd's k8s.io namespace, where
// the kubelet finds them without pulling (nothing is pulled: no registry).

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** What containerd's config names as its sandbox image (scripts/cluster/up.sh). */
export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10.1';

export const CLUSTER_IMAGES = [
  APP_IMAGE,
  BAKED_IMAGE,
  NO_GLIBC_APP_IMAGE,
  SIDECAR_INIT_IMAGE,
  VOLUME_IMAGE,
  ...Object.keys(PROXY_IMAGES),
  PAUSE_IMAGE,
];

/** Builds every image with podman (idempotent) and saves each as an OCI archive into DIR; returns the archives. */
export async function buildClusterImages(dir: string, log: (line: string) => void): Promise<string[]> {
  await buildImages(log);
  await buildPause();
  mkdirSync(dir, { recursive: true });
  const archives: string[] = [];
  for (const image of CLUSTER_IMAGES) {
    const archive = join(dir, `${image.replaceAll(/[^a-zA-Z0-9.-]/g, '_')}.oci.tar`);
    rmSync(archive, { force: true });
    await podman(['save', '--format', 'oci-archive', '--output', archive, image], 600_000);
    archives.push(archive);
  }
  return archives;
}

/** The pause stand-in: test/cluster/fixtures/pause.c, static (musl), FROM scratch. */
async function buildPause(): Promise<void> {
  const context = mkdtempSync(join(tmpdir(), 'sidecar-init-pause-'));
  try {
    const built = await run('musl-gcc', ['-static', '-O2', '-o', join(context, 'pause'), join(ROOT, 'test/cluster/fixtures/pause.c')]);
    if (built.code !== 0) throw new Error(`musl-gcc could not build pause: ${built.stderr}; apt-get install musl-tools`);
    writeFileSync(
      join(context, 'Containerfile'),
      `FROM scratch\nLABEL ${STANDIN_LABEL}\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n`,
    );
    await podman(['build', '--quiet', '--tag', PAUSE_IMAGE, context], 600_000);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

// The release's container image, written as an OCI image layout by hand (JSON
// and tar blobs named by their sha256), saved as an OCI archive: one image per
// architecture and an image index over them. What the Dockerfile's default
// target holds, without a container engine: a glibc base (base-layer.mjs) and
// a layer with /usr/local/bin/sidecar-init (the launcher), its addon and
// sidecar-init.runtime/ (the executable and its glibc runtime) beside it (as
// `sidecar-init install` writes them) and /usr/local/share/sidecar-init/ (checksum, notices,
// license). Every time in it is the commit's, every file owned by root, so the
// archive is the same bytes wherever it is made.
//
//   podman load -i sidecar-init.oci.tar    skopeo inspect oci-archive:sidecar-init.oci.tar
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gzipSync } from 'node:zlib';
import { baseEntries } from './base-layer.mjs';
import { createTar, readTree } from './tar.mjs';

const MEDIA = {
  layout: 'application/vnd.oci.image.index.v1+json',
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
};
const VARIANT = { arm64: 'v8' };

/**
 * Writes `file`: the OCI archive. `images`: per architecture (OCI name), the
 * executable and its addon; `shared`: files for /usr/local/share/sidecar-init/.
 */
export async function writeOciArchive({ file, product, images, shared }) {
  const blobs = new Map();
  const addBlob = (mediaType, bytes) => {
    const digest = `sha256:${sha256(bytes)}`;
    blobs.set(digest, bytes);
    return { mediaType, digest, size: bytes.length };
  };
  const annotations = imageAnnotations(product);
  const manifests = images.map((image) => {
    const base = baseEntries(image.arch);
    let layers;
    try {
      layers = [layer(readTree(base.unpacked), product.epoch), layer(sidecarInitEntries(image, shared, product), product.epoch)];
    } finally {
      base.cleanup();
    }
    const platform = {
      architecture: image.arch,
      os: 'linux',
      ...(VARIANT[image.arch] === undefined ? {} : { variant: VARIANT[image.arch] }),
    };
    const config = {
      created: product.time,
      ...platform,
      config: {
        Entrypoint: ['/usr/local/bin/sidecar-init'],
        Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
        Labels: annotations,
      },
      rootfs: { type: 'layers', diff_ids: layers.map((built) => `sha256:${sha256(built.tar)}`) },
      history: [
        { created: product.time, created_by: `Debian bookworm: ${base.packages.map((pkg) => `${pkg.name}=${pkg.version}`).join(' ')}` },
        { created: product.time, created_by: `${product.name} ${product.version} (${product.commit})` },
      ],
    };
    const manifest = {
      schemaVersion: 2,
      mediaType: MEDIA.manifest,
      config: addBlob(MEDIA.config, json(config)),
      layers: layers.map((built) => addBlob(MEDIA.layer, built.gzip)),
      annotations,
    };
    return { ...addBlob(MEDIA.manifest, json(manifest)), platform };
  });
  const index = { schemaVersion: 2, mediaType: MEDIA.index, manifests, annotations };
  const indexDescriptor = addBlob(MEDIA.index, json(index));
  // The layout's own index.json names the image index by the version, the tag `podman load` gives it.
  const layout = {
    schemaVersion: 2,
    mediaType: MEDIA.layout,
    manifests: [{ ...indexDescriptor, annotations: { 'org.opencontainers.image.ref.name': `${product.name}:${product.version}` } }],
  };
  const entries = [
    { path: 'blobs', kind: 'dir', mode: 0o755 },
    { path: 'blobs/sha256', kind: 'dir', mode: 0o755 },
    ...[...blobs.keys()]
      .sort()
      .map((digest) => ({ path: `blobs/sha256/${digest.slice(7)}`, kind: 'file', mode: 0o644, data: blobs.get(digest) })),
    { path: 'index.json', kind: 'file', mode: 0o644, data: json(layout) },
    { path: 'oci-layout', kind: 'file', mode: 0o644, data: json({ imageLayoutVersion: '1.0.0' }) },
  ];
  writeFileSync(file, createTar(entries, { mtime: product.epoch }));
  return { index: indexDescriptor.digest, manifests: manifests.map(({ digest, platform }) => ({ digest, platform })) };
}

/** The pre-defined OCI annotation keys, on the index, each manifest and (as labels) each config. */
function imageAnnotations(product) {
  return {
    'org.opencontainers.image.created': product.time,
    'org.opencontainers.image.licenses': product.license,
    'org.opencontainers.image.revision': product.commit,
    ...(product.sourceUrl === undefined ? {} : { 'org.opencontainers.image.source': product.sourceUrl }),
    'org.opencontainers.image.title': product.name,
    'org.opencontainers.image.version': product.version,
  };
}

function sidecarInitEntries(image, shared, product) {
  const executable = readFileSync(image.executable);
  const folders = ['usr', 'usr/local', 'usr/local/bin', 'usr/local/share', `usr/local/share/${product.name}`];
  return [
    ...folders.map((path) => ({ path, kind: 'dir', mode: 0o755 })),
    // As `sidecar-init install` writes them (src/install/install-executable.ts): the launcher as the
    // entrypoint, the executable with the glibc runtime it starts with in sidecar-init.runtime/ beside it.
    { path: `usr/local/bin/${product.name}`, kind: 'file', mode: 0o755, data: readFileSync(image.launcher) },
    { path: `usr/local/bin/${product.name}.runtime`, kind: 'dir', mode: 0o755 },
    { path: `usr/local/bin/${product.name}.runtime/${product.name}`, kind: 'file', mode: 0o755, data: executable },
    ...image.runtime.files.map((file) => ({
      path: `usr/local/bin/${product.name}.runtime/${file.name}`,
      kind: 'file',
      mode: file.name === image.runtime.loader ? 0o755 : 0o644,
      data: readFileSync(file.source),
    })),
    // Where `sidecar-init install` puts the addon and where the executable looks first (src/os/embedded-addon.ts).
    { path: `usr/local/bin/${product.name}.node`, kind: 'file', mode: 0o644, data: readFileSync(image.addon) },
    {
      path: `usr/local/share/${product.name}/${product.name}.sha256`,
      kind: 'file',
      mode: 0o644,
      data: Buffer.from(`${sha256(executable)}  ${product.name}\n`),
    },
    ...shared.map((source) => ({
      path: `usr/local/share/${product.name}/${basename(source)}`,
      kind: 'file',
      mode: 0o644,
      data: readFileSync(source),
    })),
  ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function layer(entries, epoch) {
  const tar = createTar(entries, { mtime: epoch });
  // zlib at a fixed level writes the same bytes for the same input (its gzip header carries no time or name).
  return { tar, gzip: gzipSync(tar, { level: 6 }) };
}

function json(value) {
  return Buffer.from(JSON.stringify(value));
}

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

// `npm run release`: what a release ships, from the commit checked out, into
// dist/release/ (docs/release.md says how to verify each file):
//
//   sidecar-init-linux-amd64, sidecar-init-linux-arm64   the executables (addon embedded)
//   sidecar-init.cdx.json                                 CycloneDX SBOM of what they contain
//   sidecar-init.oci.tar                                  OCI image index (amd64, arm64), as an OCI archive
//   THIRD-PARTY-NOTICES.txt                               the notices of the bundled packages
//   SHA256SUMS                                            sha256sum -c of all of the above
//
//   node scripts/release.mjs [--allow-dirty]
//
// Everything is a function of the commit: the time stamped anywhere is the
// commit's (SOURCE_DATE_EPOCH), so two releases of one commit are the same
// bytes. A work tree with uncommitted changes is refused, since its release
// would carry a revision it was not built from (--allow-dirty builds it anyway,
// with the revision marked -dirty).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_FILE, NOTICES_FILE } from './build.mjs';
import { buildBinary, projectNodeVersion } from './build-binary.mjs';
import { TARGETS } from './build-native.mjs';
import { writeRuntimeNotices } from './build-runtime.mjs';
import { writeOciArchive } from './release/oci-image.mjs';
import { createSbom, readBundledPackages } from './release/sbom.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const RELEASE_DIR = join(ROOT, 'dist/release');
/** Release file names use the OCI/Go architecture names, which users and registries know. */
const OCI_ARCH = { x64: 'amd64', arm64: 'arm64' };
const QEMU = { arm64: ['qemu-aarch64-static', '-L', '/usr/aarch64-linux-gnu'], x64: ['qemu-x86_64-static', '-L', '/usr/x86_64-linux-gnu'] };

export async function release({ allowDirty = false } = {}) {
  const product = readProduct(allowDirty);
  // The commit's time, for every tool that stamps one (the bundle's build time too).
  process.env.SOURCE_DATE_EPOCH = String(product.epoch);
  rmSync(RELEASE_DIR, { recursive: true, force: true });
  mkdirSync(RELEASE_DIR, { recursive: true });

  const executables = [];
  let metafile;
  for (const target of Object.values(TARGETS)) {
    const built = await buildBinary({ target });
    metafile = built.metafile;
    const name = `${product.name}-${target.platform}-${OCI_ARCH[target.arch]}`;
    copyFileSync(built.output, join(RELEASE_DIR, name));
    chmodSync(join(RELEASE_DIR, name), 0o755);
    executables.push({
      target,
      name,
      file: join(RELEASE_DIR, name),
      platform: `${target.platform}/${OCI_ARCH[target.arch]}`,
      sha256: built.digest,
      addon: { name: `reaper-${target.platform}-${target.arch}.node`, file: built.addon, sha256: sha256File(built.addon) },
      node: describeNode(target, built.node),
      launcher: { name: `launcher-${target.platform}-${target.arch}`, file: built.launcher, sha256: sha256File(built.launcher) },
      runtime: built.runtime,
    });
  }
  // Each build wrote the notices of its own runtime: the release's name both.
  writeRuntimeNotices(
    join(ROOT, 'dist', NOTICES_FILE),
    executables.map((executable) => executable.runtime),
  );
  // The bundle every executable carries; esbuild's metafile of it names the packages in it.
  const bundleFile = join(ROOT, BUNDLE_FILE);
  const sbom = createSbom({
    product,
    executables,
    bundle: { name: 'sidecar-init.cjs', sha256: sha256File(bundleFile) },
    packages: readBundledPackages({ metafile, root: ROOT }),
  });
  writeFileSync(join(RELEASE_DIR, `${product.name}.cdx.json`), `${JSON.stringify(sbom, null, 2)}\n`);
  copyFileSync(join(ROOT, 'dist', NOTICES_FILE), join(RELEASE_DIR, NOTICES_FILE));

  await writeOciArchive({
    file: join(RELEASE_DIR, `${product.name}.oci.tar`),
    product,
    images: executables.map((executable) => ({
      arch: OCI_ARCH[executable.target.arch],
      gnuTriplet: executable.target.gnuTriplet,
      executable: executable.file,
      addon: executable.addon.file,
      launcher: executable.launcher.file,
      runtime: executable.runtime,
    })),
    shared: [join(ROOT, 'dist', NOTICES_FILE), join(ROOT, 'LICENSE')],
  });

  const sums = readdirSync(RELEASE_DIR)
    .sort()
    .map((name) => `${sha256File(join(RELEASE_DIR, name))}  ${name}\n`)
    .join('');
  writeFileSync(join(RELEASE_DIR, 'SHA256SUMS'), sums);
  return { product, files: readdirSync(RELEASE_DIR).sort() };
}

/** Name, version, license from package.json; commit, its time and dirtiness from git; the source URL if package.json names one. */
function readProduct(allowDirty) {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const git = (...args) => run('git', ['-C', ROOT, ...args], `git ${args.join(' ')}`).trim();
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  if (dirty && !allowDirty)
    throw new Error('the work tree has uncommitted changes; commit them (or pass --allow-dirty for a trial release)');
  const epoch = Number(git('show', '-s', '--format=%ct', 'HEAD'));
  const repository = typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
  return {
    name: manifest.name,
    version: manifest.version,
    license: manifest.license,
    commit: `${git('rev-parse', 'HEAD')}${dirty ? '-dirty' : ''}`,
    epoch,
    time: new Date(epoch * 1000).toISOString().replace('.000Z', 'Z'),
    sourceUrl: repository?.replace(/^git\+/, ''),
  };
}

/**
 * The Node an executable was made from, as that binary itself reports it:
 * process.versions (under qemu-user for another architecture), and the npm
 * package it came from with the integrity package-lock.json pins for it.
 */
function describeNode(target, nodeBinary) {
  const packageName = `node-linux-${target.arch}`;
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  const locked = lock.packages[`node_modules/${packageName}`];
  if (locked?.version !== projectNodeVersion()) throw new Error(`package-lock.json does not pin ${packageName}@${projectNodeVersion()}`);
  const command = target.arch === process.arch ? [nodeBinary] : [...QEMU[target.arch], nodeBinary];
  const versions = JSON.parse(
    run(command[0], [...command.slice(1), '-p', 'JSON.stringify(process.versions)'], `ask ${nodeBinary} its versions`),
  );
  return { packageName, packageVersion: locked.version, integrity: locked.integrity, versions };
}

function sha256File(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function run(command, args, what) {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(
      `could not ${what}: ${command} ${args.join(' ')} ${result.error?.message ?? `exited ${result.status ?? result.signal}`}`,
    );
  }
  return result.stdout;
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const unknown = process.argv.slice(2).filter((arg) => arg !== '--allow-dirty');
    if (unknown.length > 0) throw new Error(`usage: release.mjs [--allow-dirty] (got ${unknown.join(' ')})`);
    const { product, files } = await release({ allowDirty: process.argv.includes('--allow-dirty') });
    console.log(`released ${product.name} ${product.version} (${product.commit}, ${product.time}) into dist/release: ${files.join(', ')}`);
  } catch (error) {
    console.error(`release: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

// What lets the single executable start in an image with no glibc (musl,
// static, scratch): the launcher (src/launcher/launcher.c, static, no libc)
// that becomes DIR/sidecar-init, and the glibc runtime the executable links,
// copied from the build machine's Debian packages into DIR/sidecar-init.runtime/
// by `sidecar-init install`. Both are embedded in the executable as assets
// (scripts/build-binary.mjs), so any copy of it installs the same bytes.
//
// The runtime is the loader and the six libraries Node links (readelf -d:
// libdl, libstdc++, libm, libgcc_s, libpthread, libc), taken from where
// Debian's packages put them: /lib/TRIPLET for this machine's architecture
// (libc6, libstdc++6, libgcc-s1), /usr/TRIPLET/lib for the other one (the
// -cross packages, repacked from the same builds). Each file's package and
// version (dpkg-query) go into dist/runtime-linux-ARCH.json, which the
// notices and the SBOM are written from.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LAUNCHER_SOURCE = join(ROOT, 'src/launcher/launcher.c');
// No C library, no start files, no builtins turned into calls to memcpy or
// memset: the launcher is its own few system calls. No build id and no
// unwinding tables: nothing in it depends on where or when it was built.
const LAUNCHER_CFLAGS = [
  '-static',
  '-nostdlib',
  '-nostartfiles',
  '-ffreestanding',
  '-fno-builtin',
  '-fno-stack-protector',
  '-fno-tree-loop-distribute-patterns',
  '-fno-asynchronous-unwind-tables',
  '-fno-pie',
  '-no-pie',
  '-Os',
  '-s',
  '-Wall',
  '-Werror',
  '-Wl,--build-id=none',
  `-ffile-prefix-map=${ROOT}/=`,
];

/** The glibc loader of each architecture: the one file of the runtime that is run, not loaded. */
export const LOADER_NAMES = { x64: 'ld-linux-x86-64.so.2', arm64: 'ld-linux-aarch64.so.1' };
/** What the Node binary and the addon link (readelf -d), besides the loader. */
const LIBRARIES = ['libc.so.6', 'libm.so.6', 'libdl.so.2', 'libpthread.so.0', 'libstdc++.so.6', 'libgcc_s.so.1'];

/** The launcher for `target`, compiled into dist/launcher/launcher-linux-ARCH. */
export function buildLauncher(target) {
  const output = join(ROOT, 'dist/launcher', `launcher-${target.platform}-${target.arch}`);
  mkdirSync(dirname(output), { recursive: true });
  const native = process.platform === 'linux' && process.arch === target.arch;
  const compilers = [`${target.gnuTriplet}-gcc`, ...(native ? ['cc', 'gcc'] : [])];
  const compiler = compilers.find((candidate) => !spawnSync(candidate, ['--version'], { stdio: 'ignore' }).error);
  if (compiler === undefined) {
    throw new Error(`no C compiler for linux-${target.arch} found (tried ${compilers.join(', ')}): apt-get install ${target.aptPackage}`);
  }
  const partial = `${output}.${process.pid}.tmp`;
  // The names the launcher checks the runtime folder for: the list collectRuntime copies, one source.
  const libraries = `-DRUNTIME_LIBRARIES=${LIBRARIES.map((name) => JSON.stringify(name)).join(',')}`;
  const result = spawnSync(compiler, [...LAUNCHER_CFLAGS, libraries, '-o', partial, LAUNCHER_SOURCE], { stdio: 'inherit' });
  if (result.status !== 0) {
    rmSync(partial, { force: true });
    throw new Error(
      `${compiler} could not compile ${LAUNCHER_SOURCE} (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`,
    );
  }
  renameSync(partial, output);
  return output;
}

/**
 * The runtime's files for `target`, each with where it was read from and the
 * Debian package that installed it; written as dist/runtime-linux-ARCH.json.
 */
export function collectRuntime(target) {
  const native = process.platform === 'linux' && process.arch === target.arch;
  const dir = native ? `/lib/${target.gnuTriplet}` : `/usr/${target.gnuTriplet}/lib`;
  const files = [LOADER_NAMES[target.arch], ...LIBRARIES].map((name) => {
    const path = join(dir, name);
    if (!existsSync(path)) {
      const install = native ? 'libc6 libstdc++6 libgcc-s1' : `libc6-${debianArch(target)}-cross libstdc++6-${debianArch(target)}-cross`;
      throw new Error(
        `${path} not found: the glibc runtime of linux-${target.arch} comes from Debian's packages (apt-get install ${install})`,
      );
    }
    const real = realpathSync(path);
    const bytes = readFileSync(real);
    // dpkg knows each file by the path its package put it at: /lib/… or /usr/lib/… (merged /usr makes both the same file).
    const known = [join(dir, basename(real)), real, real.replace(/^\/usr\//, '/')];
    return { name, source: real, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), ...debianPackage(known) };
  });
  const manifest = { arch: target.arch, loader: LOADER_NAMES[target.arch], files };
  writeFileSync(runtimeManifestFile(target), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

export function runtimeManifestFile(target) {
  return join(ROOT, 'dist', `runtime-${target.platform}-${target.arch}.json`);
}

function debianArch(target) {
  return target.arch === 'x64' ? 'amd64' : target.arch;
}

/** The Debian package that installed `file` and its version; unknown where dpkg is not there (then no SBOM names them). */
function debianPackage(paths) {
  const owner = paths.map((path) => spawnSync('dpkg-query', ['-S', path], { encoding: 'utf8' })).find((result) => result.status === 0);
  const packageName = owner === undefined ? undefined : owner.stdout.split(':')[0]?.split(',')[0]?.trim();
  if (packageName === undefined || packageName === '') return { package: 'unknown', version: 'unknown' };
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
  const version = spawnSync('dpkg-query', ['-W', '-f=${Version}', packageName], { encoding: 'utf8' });
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
  const source = spawnSync('dpkg-query', ['-W', '-f=${source:Package} ${source:Version}', packageName], { encoding: 'utf8' });
  const [sourcePackage, sourceVersion] = source.status === 0 ? source.stdout.trim().split(' ') : [];
  return {
    package: packageName,
    version: version.status === 0 ? version.stdout.trim() : 'unknown',
    sourcePackage: sourcePackage ?? packageName,
    sourceVersion: sourceVersion ?? 'unknown',
  };
}

/** SPDX expression of each runtime package's licence, by the upstream project its Debian package is built from. */
export function runtimeLicense(packageName) {
  if (packageName.startsWith('libc6')) return 'LGPL-2.1-or-later';
  if (packageName.startsWith('libstdc++6') || packageName.startsWith('libgcc-s1')) return 'GPL-3.0-or-later WITH GCC-exception-3.1';
  throw new Error(`no licence known for the runtime package ${packageName}: add it to runtimeLicense in scripts/build-runtime.mjs`);
}

/** Where the source of a Debian package version is kept for good (snapshot.debian.org), which the LGPL and GPL ask to be offered. */
export function runtimeSourceUrl(file) {
  return `https://snapshot.debian.org/package/${encodeURIComponent(file.sourcePackage)}/${encodeURIComponent(file.sourceVersion)}/`;
}

const RUNTIME_NOTICES_HEADING = "sidecar-init.runtime/ carries the following Debian packages' files";
const COMMON_LICENSES = ['LGPL-2.1', 'GPL-3'];

/**
 * THIRD-PARTY-NOTICES with the runtime's packages after the bundle's: for
 * each Debian package (and version) the files taken from it, its licence, its
 * source, and its copyright file as Debian ships it (glibc's; GCC's with the
 * runtime library exception); then the LGPL 2.1 and GPL 3 texts those refer
 * to. What was there of an earlier runtime is replaced, so each executable
 * built (release.mjs builds two) leaves the notices of those it names.
 */
export function writeRuntimeNotices(file, manifests) {
  const existing = readFileSync(file, 'utf8');
  const start = existing.indexOf(`\n${'='.repeat(72)}\n\n${RUNTIME_NOTICES_HEADING}`);
  const bundle = start === -1 ? existing : existing.slice(0, start);
  const packages = new Map();
  for (const manifest of manifests) {
    for (const entry of manifest.files) {
      const key = `${entry.package} ${entry.version}`;
      const known = packages.get(key) ?? { entry, arches: new Set(), files: new Set() };
      known.arches.add(`linux-${manifest.arch}`);
      known.files.add(entry.name);
      packages.set(key, known);
    }
  }
  // libgcc-s1 and libstdc++6 (one GCC source) ship the same copyright file: it is written once.
  const written = new Map();
  const sections = [...packages.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, { entry, arches, files }]) => {
      const copyright = join('/usr/share/doc', entry.package, 'copyright');
      const full = existsSync(copyright) ? readFileSync(copyright, 'utf8').trim() : `License: ${runtimeLicense(entry.package)}`;
      const text = written.has(full) ? `Its copyright file is ${written.get(full)}'s, above.` : full;
      if (!written.has(full)) written.set(full, key);
      return (
        `${key} (Debian; source package ${entry.sourcePackage} ${entry.sourceVersion}), for ${[...arches].join(', ')}: ${[...files].join(', ')}\n` +
        `License: ${runtimeLicense(entry.package)}\nSource: ${runtimeSourceUrl(entry)}\n\n${text}\n`
      );
    });
  const licenses = COMMON_LICENSES.filter((name) => existsSync(`/usr/share/common-licenses/${name}`)).map(
    (name) =>
      `${name}, as /usr/share/common-licenses/${name} (base-files) holds it:\n\n${readFileSync(`/usr/share/common-licenses/${name}`, 'utf8').trim()}\n`,
  );
  const separator = `\n${'-'.repeat(72)}\n\n`;
  writeFileSync(
    file,
    `${bundle}\n${'='.repeat(72)}\n\n${RUNTIME_NOTICES_HEADING}, which install writes beside the executable.\n\n${[...sections, ...licenses].join(separator)}`,
  );
}

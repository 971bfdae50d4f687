// The release's SBOM (CycloneDX 1.6, JSON): what each executable contains, not
// what node_modules holds (`npm sbom` lists every dev tool too). Each
// executable is its Node runtime (with the libraries that Node reports in
// process.versions), the reaper addon and the bundle, and the bundle is the
// npm packages esbuild's metafile names. A pure function of what the release
// measured: the same inputs give the same bytes (serial number and time come
// from the commit).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeLicense, runtimeSourceUrl } from '../build-runtime.mjs';

export const SBOM_SPEC_VERSION = '1.6';

/**
 * What each key of process.versions is, by the name and license Node's own
 * LICENSE file gives it (the license shipped inside Node, which may be one arm
 * of an upstream's dual license). `part-of` keys are not libraries but
 * versions of something that is (ICU's data, Node's ABIs): properties of it.
 * `absent` keys are libraries this Node was built without (empty versions).
 * Every key Node reports must be here: an unknown one fails the release, so a
 * library a new Node adds cannot go unlisted.
 */
export const NODE_PARTS = {
  node: { kind: 'runtime' },
  acorn: { kind: 'library', name: 'acorn', license: 'MIT', description: 'JavaScript parser (the REPL, CommonJS export detection)' },
  ada: { kind: 'library', name: 'ada', license: 'MIT', description: 'URL parser' },
  amaro: { kind: 'library', name: 'amaro', license: 'MIT', description: 'TypeScript type stripping (swc)' },
  ares: { kind: 'library', name: 'c-ares', license: 'MIT', description: 'asynchronous DNS resolver', cpe: 'c-ares:c-ares' },
  brotli: { kind: 'library', name: 'brotli', license: 'MIT', description: 'compression', cpe: 'google:brotli' },
  icu: {
    kind: 'library',
    name: 'icu',
    license: 'Unicode-3.0',
    description: 'Unicode and locale support',
    cpe: 'unicode:international_components_for_unicode',
  },
  cldr: { kind: 'part-of', of: 'icu', what: 'CLDR data version' },
  tz: { kind: 'part-of', of: 'icu', what: 'time zone data version' },
  unicode: { kind: 'part-of', of: 'icu', what: 'Unicode version' },
  llhttp: { kind: 'library', name: 'llhttp', license: 'MIT', description: 'HTTP/1 parser', cpe: 'llhttp:llhttp' },
  merve: { kind: 'library', name: 'merve', license: 'MIT', description: 'CommonJS module lexer' },
  modules: { kind: 'part-of', of: 'node', what: 'native module ABI version (NODE_MODULE_VERSION)' },
  napi: { kind: 'part-of', of: 'node', what: 'Node-API version' },
  nbytes: { kind: 'library', name: 'nbytes', license: 'MIT', description: 'byte manipulation helpers' },
  ncrypto: { kind: 'library', name: 'ncrypto', license: 'MIT', description: 'OpenSSL wrapper' },
  nghttp2: { kind: 'library', name: 'nghttp2', license: 'MIT', description: 'HTTP/2', cpe: 'nghttp2:nghttp2' },
  nghttp3: { kind: 'absent' },
  ngtcp2: { kind: 'absent' },
  openssl: { kind: 'library', name: 'openssl', license: 'Apache-2.0', description: 'TLS and cryptography', cpe: 'openssl:openssl' },
  simdjson: { kind: 'library', name: 'simdjson', license: 'Apache-2.0', description: 'JSON parser' },
  simdutf: { kind: 'library', name: 'simdutf', license: 'MIT', description: 'Unicode transcoding' },
  sqlite: { kind: 'library', name: 'sqlite', license: 'blessing', description: 'node:sqlite', cpe: 'sqlite:sqlite' },
  undici: { kind: 'library', name: 'undici', license: 'MIT', description: 'HTTP client (fetch)', cpe: 'nodejs:undici' },
  uv: { kind: 'library', name: 'libuv', license: 'MIT', description: 'event loop and I/O', cpe: 'libuv:libuv' },
  uvwasi: { kind: 'library', name: 'uvwasi', license: 'MIT', description: 'WASI' },
  v8: { kind: 'library', name: 'v8', license: 'BSD-3-Clause', description: 'JavaScript engine', cpe: 'google:v8' },
  zlib: { kind: 'library', name: 'zlib', license: 'Zlib', description: 'compression (Chromium fork)', cpe: 'zlib:zlib' },
  zstd: { kind: 'library', name: 'zstd', license: 'BSD-3-Clause', description: 'compression', cpe: 'facebook:zstandard' },
};

/**
 * The npm packages in the bundle, as esbuild's metafile lists their files,
 * each with its version, license and the integrity package-lock.json pins.
 * Throws for a bundled package the lock does not pin (a bundle from another
 * tree than the lock's).
 */
export function readBundledPackages({ metafile, root }) {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    // The innermost node_modules/NAME (or @SCOPE/NAME): a nested copy is its own package.
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match !== null) dirs.add(match[1]);
  }
  return [...dirs].sort().map((dir) => {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    const locked = lock.packages?.[dir];
    if (locked?.integrity === undefined || locked.version !== manifest.version) {
      throw new Error(`${dir} (${manifest.name}@${manifest.version}) is bundled but package-lock.json does not pin it: run npm ci`);
    }
    return { name: manifest.name, version: manifest.version, license: manifest.license, integrity: locked.integrity, dir };
  });
}

/**
 * The SBOM. `executables`: per architecture, the file (name, sha256), its
 * Node (npm package, lock integrity, process.versions) and its addon (name,
 * sha256). `bundle`: the bundle's name and sha256. `packages`: from
 * readBundledPackages. `product`: name, version, license, commit, the
 * commit's time (ISO 8601) and the source repository's URL, if known.
 */
export function createSbom({ product, executables, bundle, packages }) {
  const productRef = `pkg:npm/${product.name}@${product.version}`;
  const bundleRef = `file:${bundle.name}`;
  const components = [];
  const dependencies = [];
  for (const executable of executables) {
    const nodeRef = `${executable.node.packageName}@${executable.node.versions.node}`;
    const addonRef = `file:${executable.addon.name}`;
    components.push({
      type: 'file',
      'bom-ref': `file:${executable.name}`,
      name: executable.name,
      version: product.version,
      description: `the ${product.name} executable for ${executable.platform}: Node's single-executable format, with the runtime, the addon and the bundle below`,
      hashes: [sha256Hash(executable.sha256)],
      properties: [{ name: 'cdx:device:architecture', value: executable.platform }],
    });
    components.push(nodeComponent(nodeRef, executable.node));
    components.push({
      type: 'library',
      'bom-ref': addonRef,
      name: executable.addon.name,
      version: product.version,
      description: `${product.name}'s native reaper addon (src/os/native/), built from this commit and embedded in the executable as the asset reaper.node`,
      licenses: [{ license: { id: product.license } }],
      hashes: [sha256Hash(executable.addon.sha256)],
    });
    const runtimeRefs = executable.runtime === undefined ? [] : runtimeComponents(product, executable, components);
    dependencies.push({ ref: `file:${executable.name}`, dependsOn: [nodeRef, addonRef, bundleRef, ...runtimeRefs] });
  }
  components.push({
    type: 'file',
    'bom-ref': bundleRef,
    name: bundle.name,
    version: product.version,
    description: `${product.name}'s JavaScript bundle (esbuild), embedded in each executable as the asset sidecar-init.cjs`,
    licenses: [{ license: { id: product.license } }],
    hashes: [sha256Hash(bundle.sha256)],
  });
  for (const pkg of packages) {
    components.push({
      type: 'library',
      'bom-ref': packageUrl(pkg),
      name: pkg.name,
      version: pkg.version,
      purl: packageUrl(pkg),
      scope: 'required',
      ...(pkg.license === undefined ? {} : { licenses: [license(pkg.license)] }),
      hashes: [integrityHash(pkg.integrity)],
    });
  }
  dependencies.push({ ref: bundleRef, dependsOn: packages.map(packageUrl) });
  dependencies.unshift({ ref: productRef, dependsOn: executables.map((executable) => `file:${executable.name}`) });
  return {
    $schema: `http://cyclonedx.org/schema/bom-${SBOM_SPEC_VERSION}.schema.json`,
    bomFormat: 'CycloneDX',
    specVersion: SBOM_SPEC_VERSION,
    serialNumber: serialNumber(`${product.name}@${product.version}+${product.commit}`),
    version: 1,
    metadata: {
      timestamp: product.time,
      lifecycles: [{ phase: 'build' }],
      tools: { components: [{ type: 'application', name: `${product.name} scripts/release.mjs`, version: product.version }] },
      component: {
        type: 'application',
        'bom-ref': productRef,
        name: product.name,
        version: product.version,
        purl: productRef,
        licenses: [{ license: { id: product.license } }],
        ...(product.sourceUrl === undefined ? {} : { externalReferences: [{ type: 'vcs', url: product.sourceUrl }] }),
        properties: [{ name: `${product.name}:revision`, value: product.commit }],
      },
    },
    components,
    dependencies,
  };
}

/**
 * What `install` writes beside the executable, embedded in it as assets: the
 * launcher (built from this commit) and each file of the glibc runtime, named
 * by the Debian package it was taken from (purl pkg:deb), with its licence and
 * where its source is kept. Returns their refs.
 */
function runtimeComponents(product, executable, components) {
  const debArch = executable.platform.split('/')[1];
  const launcherRef = `file:${executable.launcher.name}`;
  components.push({
    type: 'application',
    'bom-ref': launcherRef,
    name: executable.launcher.name,
    version: product.version,
    description: `${product.name}'s static launcher (src/launcher/launcher.c), built from this commit, embedded as the asset launcher; install writes it as DIR/sidecar-init`,
    licenses: [{ license: { id: product.license } }],
    hashes: [sha256Hash(executable.launcher.sha256)],
  });
  const refs = [launcherRef];
  for (const file of executable.runtime.files) {
    const purl = `pkg:deb/debian/${file.package}@${encodeURIComponent(file.version)}?arch=${file.package.includes('-cross') ? 'all' : debArch}&distro=debian-12`;
    const ref = `${purl}#${file.name}`;
    refs.push(ref);
    components.push({
      type: 'library',
      'bom-ref': ref,
      name: file.name,
      version: file.version,
      description: `from the Debian package ${file.package} ${file.version} (source package ${file.sourcePackage} ${file.sourceVersion}); install writes it into DIR/sidecar-init.runtime/`,
      purl,
      scope: 'required',
      licenses: [{ expression: runtimeLicense(file.package) }],
      hashes: [sha256Hash(file.sha256)],
      externalReferences: [{ type: 'source-distribution', url: runtimeSourceUrl(file) }],
    });
  }
  return refs;
}

/** Node and, nested, what it is built from (process.versions of that very binary). */
function nodeComponent(ref, node) {
  const parts = Object.entries(node.versions).map(([key, value]) => {
    const part = NODE_PARTS[key];
    if (part === undefined) {
      throw new Error(
        `Node ${node.versions.node} reports process.versions.${key}, which scripts/release/sbom.mjs does not know: add it to NODE_PARTS`,
      );
    }
    return { key, value, part };
  });
  // The versions that belong to another part (ICU's data, Node's ABIs), as that part's properties.
  const propertiesOf = (owner) =>
    parts
      .filter(({ part }) => part.kind === 'part-of' && part.of === owner)
      .map(({ key, value }) => ({ name: `nodejs:versions:${key}`, value }));
  const libraries = parts
    .filter(({ part }) => part.kind === 'library')
    .map(({ key, value, part }) => ({
      type: 'library',
      'bom-ref': `${ref}/${part.name}`,
      name: part.name,
      version: value,
      description: part.description,
      licenses: [{ license: { id: part.license } }],
      ...(part.cpe === undefined ? {} : { cpe: `cpe:2.3:a:${part.cpe}:${cpeVersion(value)}:*:*:*:*:*:*:*` }),
      ...(propertiesOf(key).length === 0 ? {} : { properties: propertiesOf(key) }),
    }));
  return {
    type: 'framework',
    'bom-ref': ref,
    name: 'node',
    version: node.versions.node,
    description: `the Node.js runtime, from the npm package ${node.packageName}@${node.packageVersion} (pinned by package-lock.json), stripped of its symbols (strip --strip-all)`,
    licenses: [{ license: { id: 'MIT' } }],
    cpe: `cpe:2.3:a:nodejs:node.js:${node.versions.node}:*:*:*:*:*:*:*`,
    purl: `pkg:npm/${node.packageName}@${node.packageVersion}`,
    hashes: [integrityHash(node.integrity)],
    properties: propertiesOf('node'),
    components: libraries,
  };
}

function cpeVersion(version) {
  // A CPE version has no room for V8's "-node.N" suffix or zlib's fork tag.
  return version.replace(/-.*$/, '').replace(/[^A-Za-z0-9._]/g, '');
}

function packageUrl(pkg) {
  // purl: the scope's @ is percent-encoded.
  return `pkg:npm/${pkg.name.replace(/^@/, '%40')}@${pkg.version}`;
}

function license(expression) {
  // One SPDX id, or an expression (MIT OR Apache-2.0).
  return /^[A-Za-z0-9.+-]+$/.test(expression) ? { license: { id: expression } } : { expression };
}

function sha256Hash(hex) {
  return { alg: 'SHA-256', content: hex };
}

/** An npm integrity (sha512-BASE64) as a CycloneDX hash (hex): the hash of the package's tarball. */
function integrityHash(integrity) {
  const match = /^sha512-([A-Za-z0-9+/=]+)$/.exec(integrity);
  if (match === null) throw new Error(`integrity ${integrity} is not sha512-BASE64`);
  return { alg: 'SHA-512', content: Buffer.from(match[1], 'base64').toString('hex') };
}

/** A name-based UUID (RFC 9562 version 5 layout, SHA-256 derived): one serial number per release. */
function serialNumber(name) {
  const bytes = createHash('sha256').update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The release's SBOM (scripts/release/sbom.mjs) made from real inputs: a real
// bundle build and its esbuild metafile, a real addon build, the versions the
// project's Node binary reports, package-lock.json. It is checked against
// CycloneDX's own JSON schema (the strict 1.6 schema that
// @cyclonedx/cyclonedx-library ships), and against what went into the bundle.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const NODE = join(ROOT, `node_modules/node-linux-${process.arch}/bin/node`);

type Component = {
  'bom-ref': string;
  type: string;
  name: string;
  version?: string;
  purl?: string;
  licenses?: { license?: { id: string }; expression?: string }[];
  hashes?: { alg: string; content: string }[];
  components?: Component[];
};
type Sbom = { specVersion: string; components: Component[]; dependencies: { ref: string; dependsOn: string[] }[] };

let work: string;
let sbomModule: {
  createSbom: (inputs: unknown) => Sbom;
  readBundledPackages: (inputs: unknown) => { name: string; version: string; license: string; integrity: string }[];
};
let inputs: Record<string, unknown>;
let metafile: { inputs: Record<string, unknown> };
let addonFile: string;
let launcherFile: string;
let runtime: { files: { name: string; package: string; version: string; sourcePackage: string; sourceVersion: string; sha256: string }[] };
let versions: Record<string, string>;

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
/** The runtime file's bytes as read now, from where the build took them. */
const readSha256 = (file: { sha256: string; source?: string }) => (file.source === undefined ? file.sha256 : sha256(file.source));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sidecar-init-sbom-'));
  sbomModule = await import(join(ROOT, 'scripts/release/sbom.mjs'));
  const { buildBundle } = await import(join(ROOT, 'scripts/build.mjs'));
  const bundleFile = join(work, 'sidecar-init.cjs');
  ({ metafile } = await buildBundle({ outfile: bundleFile }));
  addonFile = join(work, 'reaper.node');
  execFileSync(NODE, [join(ROOT, 'scripts/build-native.mjs'), addonFile], { stdio: 'pipe' });
  versions = JSON.parse(execFileSync(NODE, ['-p', 'JSON.stringify(process.versions)'], { encoding: 'utf8' }));
  const runtimeModule = await import(join(ROOT, 'scripts/build-runtime.mjs'));
  const { hostTarget } = await import(join(ROOT, 'scripts/build-native.mjs'));
  launcherFile = runtimeModule.buildLauncher(hostTarget());
  runtime = runtimeModule.collectRuntime(hostTarget());
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  const packageName = `node-linux-${process.arch}`;
  inputs = {
    product: {
      name: 'sidecar-init',
      version: '0.1.0',
      license: 'Apache-2.0',
      commit: '0123456789abcdef0123456789abcdef01234567',
      time: '2026-01-02T03:04:05Z',
      sourceUrl: 'https://example.com/sidecar-init.git',
    },
    executables: [
      {
        name: 'sidecar-init-linux-test',
        platform: 'linux/test',
        // The file the executable is made from stands in for it: the SBOM takes only its hash.
        sha256: sha256(NODE),
        addon: { name: 'reaper-linux-test.node', sha256: sha256(addonFile) },
        launcher: { name: 'launcher-linux-test', sha256: sha256(launcherFile) },
        runtime,
        node: { packageName, packageVersion: versions.node, integrity: lock.packages[`node_modules/${packageName}`].integrity, versions },
      },
    ],
    bundle: { name: 'sidecar-init.cjs', sha256: sha256(bundleFile) },
    packages: sbomModule.readBundledPackages({ metafile, root: ROOT }),
  };
}, 180_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the release SBOM', () => {
  it('is a valid CycloneDX 1.6 document (strict schema)', async () => {
    const sbom = sbomModule.createSbom(inputs);
    expect(sbom.specVersion).toBe('1.6');
    const problems = await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(JSON.stringify(sbom));
    expect(problems).toBeNull();
  });

  it('lists exactly the npm packages of the bundle, each with version, license and the integrity package-lock.json pins', () => {
    const sbom = sbomModule.createSbom(inputs);
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
    const bundled = new Set<string>();
    for (const input of Object.keys(metafile.inputs)) {
      const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (match?.[1] !== undefined) bundled.add(match[1]);
    }
    const listed = sbom.components.filter((component) => component.purl?.startsWith('pkg:npm/') && component.type === 'library');
    expect(listed.map((component) => component.name).sort()).toEqual(
      [...bundled].map((dir) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')).name).sort(),
    );
    for (const dir of bundled) {
      const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
      const component = listed.find((candidate) => candidate.name === manifest.name);
      expect(component?.version).toBe(manifest.version);
      expect(component?.licenses?.[0]?.license?.id ?? component?.licenses?.[0]?.expression).toBe(manifest.license);
      const integrity = Buffer.from(lock.packages[dir].integrity.replace(/^sha512-/, ''), 'base64').toString('hex');
      expect(component?.hashes).toEqual([{ alg: 'SHA-512', content: integrity }]);
    }
    // Development tools are in node_modules, not in the bundle.
    expect(listed.map((component) => component.name)).not.toContain('esbuild');
    expect(listed.map((component) => component.name)).not.toContain('vitest');
    expect(sbom.dependencies.find((dependency) => dependency.ref === 'file:sidecar-init.cjs')?.dependsOn).toHaveLength(bundled.size);
  });

  it("lists the Node runtime with every library its process.versions names, and the addon's sha256", () => {
    const sbom = sbomModule.createSbom(inputs);
    const node = sbom.components.find((component) => component.name === 'node');
    expect(node?.version).toBe(versions.node);
    const nested = new Map((node?.components ?? []).map((component) => [component.name, component.version]));
    for (const [name, key] of [
      ['v8', 'v8'],
      ['libuv', 'uv'],
      ['openssl', 'openssl'],
      ['icu', 'icu'],
      ['zlib', 'zlib'],
      ['c-ares', 'ares'],
      ['llhttp', 'llhttp'],
      ['nghttp2', 'nghttp2'],
    ] as const) {
      expect(nested.get(name), name).toBe(versions[key]);
    }
    const addon = sbom.components.find((component) => component.name === 'reaper-linux-test.node');
    expect(addon?.hashes).toEqual([{ alg: 'SHA-256', content: sha256(addonFile) }]);
  });

  it('lists the launcher and each file of the glibc runtime with its Debian package, licence, source and sha256', () => {
    const sbom = sbomModule.createSbom(inputs);
    expect(sbom.components.find((component) => component.name === 'launcher-linux-test')?.hashes).toEqual([
      { alg: 'SHA-256', content: sha256(launcherFile) },
    ]);
    const carried = sbom.components.filter((component) => component.purl?.startsWith('pkg:deb/debian/'));
    expect(carried.map((component) => component.name).sort()).toEqual(runtime.files.map((file) => file.name).sort());
    for (const file of runtime.files) {
      const component = carried.find((candidate) => candidate.name === file.name) as Component & {
        externalReferences?: { url: string }[];
      };
      expect(component.purl).toContain(`pkg:deb/debian/${file.package}@`);
      expect(component.hashes).toEqual([{ alg: 'SHA-256', content: readSha256(file) }]);
      expect(component.licenses?.[0]?.expression).toBe(
        file.package.startsWith('libc6') ? 'LGPL-2.1-or-later' : 'GPL-3.0-or-later WITH GCC-exception-3.1',
      );
      expect(component.externalReferences?.[0]?.url).toMatch(/^https:\/\/snapshot\.debian\.org\/package\/[^/]+\/[^/]+\/$/);
    }
    const dependsOn = sbom.dependencies.find((dependency) => dependency.ref === 'file:sidecar-init-linux-test')?.dependsOn ?? [];
    expect(dependsOn).toEqual(expect.arrayContaining(['file:launcher-linux-test', ...carried.map((component) => component['bom-ref'])]));
  });

  it('refuses a Node that reports a library it does not know, rather than leave it out', () => {
    const [executable] = inputs.executables as { node: { versions: Record<string, string> } }[];
    const unknown = { ...inputs, executables: [{ ...executable, node: { ...executable?.node, versions: { ...versions, quux: '1.0' } } }] };
    expect(() => sbomModule.createSbom(unknown)).toThrow(/process\.versions\.quux.*NODE_PARTS/);
  });

  it('is the same bytes for the same inputs (serial number and time come from the commit)', () => {
    expect(JSON.stringify(sbomModule.createSbom(inputs))).toBe(JSON.stringify(sbomModule.createSbom(inputs)));
  });
});

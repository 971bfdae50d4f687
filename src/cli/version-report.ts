import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isSea } from 'node:sea';
import { embeddedAddon } from '../os/embedded-addon.ts';
import { loadNativeAddon, NativeAddonError } from '../os/native.ts';
import { EXIT_INTERNAL, EXIT_SUCCESS } from './exit-codes.ts';
import { BUILD_STAMP, VERSION } from './version.ts';

// `sidecar-init version [--json]` (and `--version --verbose`, its text): what
// a bug report needs to say which build ran where, the reaper addon included,
// which is loaded for real so that its hash is that of the code that runs.

export interface VersionReport {
  readonly version: string;
  readonly commit: string;
  /** The commit's time, not the build's (scripts/build.mjs). */
  readonly buildTime: string;
  readonly node: string;
  readonly platform: string;
  readonly arch: string;
  /** `glibc 2.36`, or `not glibc`. */
  readonly libc: string;
  readonly runtime: 'single executable' | 'node';
  /** The single executable, or the Node running the bundle. */
  readonly executable: string;
  readonly addon: AddonReport;
}

export type AddonReport =
  /** Loaded from this file (the build's dist/native/, or $SIDECAR_INIT_NATIVE_ADDON). */
  | { readonly kind: 'file'; readonly path: string; readonly sha256: string }
  /** The single executable's own copy, checked byte for byte before it was loaded. */
  | { readonly kind: 'embedded'; readonly sha256: string }
  | { readonly kind: 'not-loaded'; readonly error: string };

/** What `version` prints, and its exit code: 1, as for a run, when the addon cannot load (the report says why). */
export function reportVersion(json: boolean, env: NodeJS.ProcessEnv): { readonly stdout: string; readonly code: number } {
  const report = createVersionReport(env);
  return {
    stdout: json ? `${JSON.stringify(report, null, 2)}\n` : formatVersionText(report),
    code: report.addon.kind === 'not-loaded' ? EXIT_INTERNAL : EXIT_SUCCESS,
  };
}

export function createVersionReport(env: NodeJS.ProcessEnv): VersionReport {
  return {
    version: VERSION,
    commit: BUILD_STAMP.commit,
    buildTime: BUILD_STAMP.time,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    libc: describeLibc(),
    runtime: isSea() ? 'single executable' : 'node',
    executable: process.execPath,
    addon: reportAddon(env),
  };
}

function reportAddon(env: NodeJS.ProcessEnv): AddonReport {
  try {
    const { origin } = loadNativeAddon(env);
    switch (origin.kind) {
      case 'file':
        // Read again by its path, after dlopen: a file replaced in between
        // would show as a hash no build has, which a report makes plain.
        return { kind: 'file', path: origin.path, sha256: sha256(readFileSync(origin.path)) };
      case 'embedded':
        return { kind: 'embedded', sha256: sha256(embeddedAddon()) };
    }
  } catch (error) {
    if (!(error instanceof NativeAddonError)) throw error;
    return { kind: 'not-loaded', error: error.message };
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function formatVersionText(report: VersionReport): string {
  const runtime =
    report.runtime === 'single executable'
      ? `single executable (${report.executable}) with Node ${report.node}`
      : `Node ${report.node} (${report.executable})`;
  return [
    `sidecar-init ${report.version}`,
    `platform: ${report.platform}-${report.arch} (${report.libc})`,
    `runtime: ${runtime}`,
    `commit: ${report.commit}`,
    `build time: ${report.buildTime} (the commit’s, not the build’s)`,
    `addon: ${describeAddon(report.addon)}`,
    '',
  ].join('\n');
}

function describeAddon(addon: AddonReport): string {
  switch (addon.kind) {
    case 'file':
      return `${addon.path} (sha256 ${addon.sha256})`;
    case 'embedded':
      return `embedded in the executable (sha256 ${addon.sha256})`;
    case 'not-loaded':
      return `not loaded: ${addon.error}`;
  }
}

function describeLibc(): string {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime === undefined ? 'not glibc' : `glibc ${header.glibcVersionRuntime}`;
}

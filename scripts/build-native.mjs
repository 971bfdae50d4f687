// Compiles the reaper addon: every .c file in src/os/native/ into one
// shared object, with the system C compiler or, for the other architecture,
// Debian's cross compiler. Not node-gyp: it downloads Node's headers at build
// time, while the only headers an N-API addon needs ship in node-api-headers.
//
//   node scripts/build-native.mjs [OUT_FILE]    this machine's addon; default dist/native/reaper-linux-ARCH.node
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIR = join(ROOT, 'src/os/native');
const HEADERS = join(ROOT, 'node_modules/node-api-headers/include');
// -s: no symbols or debug information; -ffile-prefix-map: any path that would
// remain (__FILE__, say) is relative to the checkout, so the addon is the same
// bytes in any folder (docs/release.md).
const CFLAGS = ['-shared', '-fPIC', '-O2', '-s', '-Wall', '-Werror', `-ffile-prefix-map=${ROOT}/=`];

/** The linux architectures a prebuilt addon and executable exist for, with the compilers that target them. */
export const TARGETS = {
  x64: { platform: 'linux', arch: 'x64', gnuTriplet: 'x86_64-linux-gnu', aptPackage: 'gcc-x86-64-linux-gnu' },
  arm64: { platform: 'linux', arch: 'arm64', gnuTriplet: 'aarch64-linux-gnu', aptPackage: 'gcc-aarch64-linux-gnu' },
};

/** This machine's target; throws on anything else (there is no addon for it). */
export function hostTarget() {
  const target = process.platform === 'linux' ? TARGETS[process.arch] : undefined;
  if (target === undefined) {
    throw new Error(`no addon for ${process.platform}-${process.arch}: sidecar-init builds for linux x64 and arm64 (glibc)`);
  }
  return target;
}

/** Where the bundle looks for the addon (src/os/native.ts): dist/native/reaper-linux-ARCH.node. */
export function addonFile(target) {
  return join(ROOT, 'dist/native', `reaper-${target.platform}-${target.arch}.node`);
}

/** Builds the addon and returns its path. Throws with the fix when the toolchain is missing. */
export function buildNative({ target = hostTarget(), outFile = addonFile(target) } = {}) {
  const compiler = findCompiler(target);
  if (!existsSync(join(HEADERS, 'node_api.h'))) {
    throw new Error(`N-API headers not found in ${HEADERS}: run npm install (devDependency node-api-headers)`);
  }
  const sources = readdirSync(SOURCE_DIR)
    .filter((name) => name.endsWith('.c'))
    .sort()
    .map((name) => join(SOURCE_DIR, name));
  if (sources.length === 0) throw new Error(`no .c files in ${SOURCE_DIR}`);
  mkdirSync(dirname(outFile), { recursive: true });
  // Compile beside the target, then rename: a process loading the addon at the
  // same moment sees the old file or the new one, never half of one.
  const partial = `${outFile}.${process.pid}.tmp`;
  const result = spawnSync(compiler, [...CFLAGS, '-I', HEADERS, '-o', partial, ...sources], { stdio: 'inherit' });
  if (result.status !== 0) {
    rmSync(partial, { force: true });
    throw new Error(
      `${compiler} could not compile ${sources.join(' ')} (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`,
    );
  }
  renameSync(partial, outFile);
  return outFile;
}

/**
 * The addons of the platforms other than this one (npm pack), so that
 * `npm install -g` needs no compiler there. One whose cross-compiler this
 * machine lacks is left out, not a failure: the package is then for the
 * platforms it has, one line says which is missing and how to add it, and a run
 * on that platform says its addon is missing. `required` (CI sets
 * SIDECAR_INIT_REQUIRE_ALL_ADDONS=1) makes a missing one the failure it is for
 * a package to publish.
 */
export function buildOtherAddons({ required = false, warn = console.warn } = {}) {
  for (const target of Object.values(TARGETS).filter((other) => other !== hostTarget())) {
    if (!required && !hasCompiler(target)) {
      // An addon left by an earlier build would be packed as this source's: it goes.
      rmSync(addonFile(target), { force: true });
      warn(
        `build: this package has no linux-${target.arch} addon (no ${target.gnuTriplet}-gcc here; apt-get install ${target.aptPackage} to include it)`,
      );
      continue;
    }
    buildNative({ target });
  }
}

/** Whether this machine has a C compiler for `target` (the host's own, or a cross-compiler). */
export function hasCompiler(target) {
  return compilerFor(target) !== undefined;
}

function compilerCandidates(target) {
  const native = process.platform === 'linux' && process.arch === target.arch;
  return [`${target.gnuTriplet}-gcc`, ...(native ? ['cc', 'gcc'] : [])];
}

function compilerFor(target) {
  return compilerCandidates(target).find((compiler) => !spawnSync(compiler, ['--version'], { stdio: 'ignore' }).error);
}

function findCompiler(target) {
  const native = process.platform === 'linux' && process.arch === target.arch;
  const candidates = compilerCandidates(target);
  const found = compilerFor(target);
  if (found !== undefined) return found;
  const install = native ? 'gcc libc6-dev' : target.aptPackage;
  throw new Error(`no C compiler for linux-${target.arch} found (tried ${candidates.join(', ')}): apt-get install ${install}`);
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const outFile = process.argv[2] === undefined ? undefined : resolve(process.argv[2]);
    console.log(`built ${buildNative({ outFile })}`);
  } catch (error) {
    console.error(`build-native: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

// Compiles the reaper addon (src/process/native/reaper.c) with the system C
// compiler. Not node-gyp: it downloads Node's headers at build time, while the
// only headers an N-API addon needs ship in the node-api-headers package.
//
//   node scripts/build-native.mjs [OUT_FILE]    default: dist/native/reaper.node
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = join(ROOT, 'src/process/native/reaper.c');
const HEADERS = join(ROOT, 'node_modules/node-api-headers/include');
export const DEFAULT_ADDON_FILE = join(ROOT, 'dist/native/reaper.node');
const COMPILERS = ['cc', 'gcc'];
const CFLAGS = ['-shared', '-fPIC', '-O2', '-Wall', '-Werror'];

/** Builds the addon and returns its path. Throws with the fix when the toolchain is missing. */
export function buildNative({ outFile = DEFAULT_ADDON_FILE } = {}) {
  const compiler = findCompiler();
  if (!existsSync(join(HEADERS, 'node_api.h'))) {
    throw new Error(`N-API headers not found in ${HEADERS}: run npm install (devDependency node-api-headers)`);
  }
  mkdirSync(dirname(outFile), { recursive: true });
  // Compile beside the target, then rename: a process loading the addon at the
  // same moment sees the old file or the new one, never half of one.
  const partial = `${outFile}.${process.pid}.tmp`;
  const result = spawnSync(compiler, [...CFLAGS, '-I', HEADERS, '-o', partial, SOURCE], { stdio: 'inherit' });
  if (result.status !== 0) {
    rmSync(partial, { force: true });
    throw new Error(`${compiler} could not compile ${SOURCE} (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
  }
  renameSync(partial, outFile);
  return outFile;
}

function findCompiler() {
  for (const compiler of COMPILERS) {
    if (!spawnSync(compiler, ['--version'], { stdio: 'ignore' }).error) return compiler;
  }
  throw new Error(`no C compiler found (tried ${COMPILERS.join(', ')}): install gcc: apt-get install gcc`);
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

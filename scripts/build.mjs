// Builds what bin/sidecar-init runs: one esbuild bundle (measured: 90 ms to
// start bundled vs 146 ms unbundled) and the native reaper addon for this
// machine's platform. `npm run build:binary` (scripts/build-binary.mjs) puts the
// same bundle into a single executable.
//
//   node scripts/build.mjs [--all]
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, transform } from 'esbuild';
import { buildNative, buildOtherAddons, hostTarget } from './build-native.mjs';

export const BUNDLE_FILE = 'dist/sidecar-init.cjs';

/**
 * commander requires node:child_process at load, for subcommands that are
 * separate executables, which sidecar-init has none of. Loading it (with net,
 * stream and dgram) is most of what `--version`, `--help`, `validate` and
 * `plan` would otherwise spend beyond Node's own start, so commander gets it on
 * first use instead (a run loads it only for execa's bounded commands, exec
 * probes and hooks: the addon forks every long-lived child, piped or not).
 */
const COMMANDER_CHILD_PROCESS_ON_USE = {
  name: 'commander-child-process-on-use',
  setup(build) {
    build.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /node_modules\/commander\/lib\/command\.js$/.test(args.importer) ? { path: 'child_process', namespace: 'on-use' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'on-use' }, () => ({
      contents: "module.exports = { get spawn() { return require('node:child_process').spawn; } };",
      loader: 'js',
    }));
  },
};

/**
 * pino requires its transports (a worker thread per destination: thread-stream,
 * worker_threads, assert) and its file destination (sonic-boom) when it loads,
 * though sidecar-init never uses them: src/log/logger.ts hands pino its own
 * write function. Evaluating them cost every start ~4 ms of CPU and ~0.5 MiB
 * (measured in the single executable), so the bundle carries stubs that say so
 * if anything ever calls them.
 */
const PINO_UNUSED_PARTS = {
  name: 'pino-unused-parts',
  setup(build) {
    const unused = (what) =>
      `throw new Error('sidecar-init does not bundle pino ' + ${JSON.stringify(what)} + '; write lines with a stream instead')`;
    const stubs = {
      transport: `module.exports = function transport() { ${unused('transports')} };`,
      'sonic-boom': `module.exports = class SonicBoom { constructor() { ${unused('destinations (sonic-boom)')} } };`,
      // pino asks only whether it runs on the main thread, and only to set up sonic-boom.
      worker_threads: 'module.exports = { isMainThread: true };',
    };
    build.onResolve({ filter: /^(\.\/lib\/transport|\.\/transport|sonic-boom|worker_threads)$/ }, (args) => {
      if (!/node_modules\/pino\/(pino\.js|lib\/tools\.js)$/.test(args.importer)) return undefined;
      const stub = args.path.endsWith('transport') ? 'transport' : args.path;
      return { path: stub, namespace: 'pino-unused-parts' };
    });
    build.onLoad({ filter: /.*/, namespace: 'pino-unused-parts' }, (args) => ({ contents: stubs[args.path], loader: 'js' }));
  },
};
export const NOTICES_FILE = 'THIRD-PARTY-NOTICES.txt';

/**
 * Packages a plain run never evaluates, each bundled into an asset of its own
 * (dist/assets/NAME.cjs; in the executable, the asset NAME.cjs) and compiled
 * on first use: yaml only with a config file, execa with the first bounded
 * command (an exec probe or hook, a drain). In the bundle their source would be
 * on PID 1's heap all the same (V8 keeps a script's source to compile its
 * functions lazily), and yaml was evaluated at every start, a file or not.
 * Each import of them in src/ resolves to a stub whose exports are getters
 * that load the asset on first access (__sidecar_init_load_asset, the banner's),
 * so a module may import them at its top as usual.
 */
export const LAZY_PACKAGES = ['yaml', 'execa'];

/**
 * sidecar-init's own modules that only some commands or some plans use, each
 * asset with the modules it lists and what they import: the webhook, `install`,
 * `ctl`'s client, `plan`'s printer, the gRPC probe (only a plan with one), the
 * status server (only with an address) and the announce files (only with
 * --announce, --until or announced:FILE). The externals' kit stays in the
 * bundle: its pidfd calls need the bundle's own addon loader (a copy would
 * load the addon a second time).
 * A plain run never compiles them, and their source is not on PID 1's heap
 * (the bundle's source is, whole: V8 keeps it to compile functions lazily, and
 * scans all of it at every start). Imported as usual: every import of a listed
 * module from outside its asset resolves to a stub of getters, as for the
 * packages. What the asset shares with the bundle is a copy of its own, so
 * each listed module must keep no state the bundle also reads.
 */
export const LAZY_MODULES = {
  webhook: ['src/webhook/serve-webhook.ts'],
  install: ['src/install/run-install.ts'],
  'ctl-client': ['src/control/control-client.ts'],
  'plan-printer': ['src/cli/plan-view.ts', 'src/cli/plan-text.ts'],
  'grpc-probe': ['src/probes/grpc-probe.ts'],
  // Only with --status-addr.
  'status-server': ['src/status/status-server.ts'],
  // Only with --announce, --until or an announced:FILE external.
  announce: ['src/announce/announce.ts'],
};

/**
 * Parts of a package that only some commands use, each in an asset of its own
 * like LAZY_PACKAGES: an import of one of the listed files from elsewhere in
 * the package resolves to a stub of getters. zod's JSON Schema output (its
 * processors and to-json-schema, 23 kB) is reached from every schema, but only
 * through methods that `sidecar-init schema` alone calls (toJSONSchema, the
 * schemas' processJSONSchema); it keeps no state of its own (zod's registry
 * and config live on globalThis, shared with the bundle's copy of zod).
 */
export const LAZY_PACKAGE_PARTS = {
  'zod-json-schema': ['node_modules/zod/v4/core/json-schema-processors.js', 'node_modules/zod/v4/core/to-json-schema.js'],
};

/** Every asset compiled on first use, by name (dist/assets/NAME.cjs). */
export const LAZY_ASSETS = [...LAZY_PACKAGES, ...Object.keys(LAZY_MODULES), ...Object.keys(LAZY_PACKAGE_PARTS)];

/** What the bundle and each lazy asset are built with alike: CommonJS for Node 22, no legal comments (the notices file has them); names kept for src/ only (KEEP_SOURCE_NAMES). */
const COMMON_BUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  keepNames: false,
  metafile: true,
  legalComments: 'none',
};
/**
 * Names kept for src/ only: an error a user sees names our functions and
 * classes (the internal error line's "in FUNCTION", from the stack; pino's
 * `type` of a logged error, its class's name), not minified letters. The
 * packages' names are nobody's to read, and keeping them (esbuild's
 * keepNames for the whole bundle: a call per function and class, 1,362 of
 * them, zod's classes foremost) cost every start instructions and the bundle
 * bytes (bench/README.md, "Goals"). esbuild keeps names per build, not per
 * file, so each file of src/ is transformed with keepNames first, and the
 * helper each would declare is imported from one module instead, whose name
 * the bundle's minifier shortens.
 */
const KEEP_SOURCE_NAMES = {
  name: 'keep-source-names',
  setup(build) {
    const helper =
      /^var __defProp = Object\.defineProperty;\nvar __name = \(target, value\) => __defProp\(target, "name", \{ value, configurable: true \}\);\n/;
    const HELPER_MODULE = 'sidecar-init:keep-name';
    build.onResolve({ filter: /^sidecar-init:keep-name$/ }, () => ({ path: 'helper', namespace: 'keep-source-names' }));
    build.onLoad({ filter: /.*/, namespace: 'keep-source-names' }, () => ({
      contents: "export const __name = (target, value) => Object.defineProperty(target, 'name', { value, configurable: true });",
      loader: 'js',
    }));
    build.onLoad({ filter: /\/src\/.*\.ts$/, namespace: 'file' }, async (args) => {
      const source = readFileSync(args.path, 'utf8');
      const { code } = await transform(source, { loader: 'ts', format: 'esm', target: 'node22', keepNames: true, sourcefile: args.path });
      if (!code.includes('__name(')) return { contents: code, loader: 'js' };
      if (!helper.test(code)) throw new Error(`keep-source-names: esbuild's __name helper is not where expected in ${args.path}`);
      return { contents: `import { __name } from ${JSON.stringify(HELPER_MODULE)};\n${code.replace(helper, '')}`, loader: 'js' };
    });
  },
};
export const ASSETS_DIR = 'dist/assets';
const LAZY_FILTER = new RegExp(`^(${LAZY_PACKAGES.join('|')})$`);
/** Where the bundle leaves the asset loader and its own URL for the assets (a global: each asset is a script of its own). */
const SHARED = "globalThis[Symbol.for('sidecar-init.assets')]";

/**
 * The loader the stubs call: the asset's module, compiled once, as the
 * executable's loader compiles the bundle. The bundle defines it; an asset
 * takes the bundle's, so an asset loaded from another one is loaded once. An
 * asset that is not there (a dist/ copied without dist/assets/) is named with
 * how to get it; only the lookup is checked, so an error the asset's own code
 * throws reaches the caller as it is.
 */
const ASSET_LOADER = `var __sidecar_init_assets={};function __sidecar_init_load_asset(name){if(name in __sidecar_init_assets)return __sidecar_init_assets[name];var file=name+'.cjs',sea=require('node:sea'),loaded,source,path;function missing(what){return new Error("sidecar-init's asset "+file+' is missing ('+what+'): this build is incomplete; build it again (npm run build, or npm run build:binary for the executable)')}if(sea.isSea()){try{source=sea.getAsset(file,'utf8')}catch(cause){throw missing(cause.message)}var asset={exports:{}};new(require('node:vm').Script)('(function (exports, require, module) {'+source+'\\n})',{filename:file}).runInThisContext()(asset.exports,require,asset);loaded=asset.exports}else{path=require('node:path').join(__dirname,'assets',file);if(!require('node:fs').existsSync(path))throw missing(path+' does not exist');loaded=require(path)}return __sidecar_init_assets[name]=loaded}${SHARED}={load:__sidecar_init_load_asset,url:__sidecar_init_bundle_url};`;
const ASSET_BANNER = `var __sidecar_init_load_asset=${SHARED}.load,__sidecar_init_bundle_url=${SHARED}.url;`;

/** A stub module: each export a getter that loads `asset` and reads the export of that name from it. */
function assetStub(asset, names) {
  return [
    "Object.defineProperty(exports, '__esModule', { value: true });",
    `for (const name of ${JSON.stringify(names)})`,
    `  Object.defineProperty(exports, name, { enumerable: true, get: () => __sidecar_init_load_asset(${JSON.stringify(asset)})[name] });`,
  ].join('\n');
}

// The stubs' export names come from importing each package with the Node that
// builds (the one the project carries: npm run puts it first on PATH; execa
// needs Node >= 22). 'module.exports' is what Node 24 adds for a CommonJS
// package (yaml), not an export: left out, the names are the same whichever
// Node >= 22 builds.
async function lazyPackagesPlugin() {
  const names = Object.fromEntries(
    await Promise.all(
      LAZY_PACKAGES.map(async (name) => [
        name,
        Object.keys(await import(name)).filter((key) => key !== 'default' && key !== 'module.exports'),
      ]),
    ),
  );
  return {
    name: 'lazy-packages',
    setup(build) {
      build.onResolve({ filter: LAZY_FILTER }, (args) =>
        /(^|\/)node_modules\//.test(args.importer) ? undefined : { path: args.path, namespace: 'lazy-package' },
      );
      build.onLoad({ filter: /.*/, namespace: 'lazy-package' }, (args) => ({
        contents: assetStub(args.path, names[args.path]),
        loader: 'js',
      }));
    },
  };
}

/** The names a module of src/ exports, as esbuild reads them (types are not exports). */
async function moduleExports(file) {
  const result = await build({
    entryPoints: [join(ROOT, file)],
    bundle: false,
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'warning',
  });
  return Object.values(result.metafile.outputs)[0].exports;
}

/** Imports of a LAZY_MODULES module resolve to its asset's stub, except inside that asset (`within`). */
async function lazyModulesPlugin(within) {
  const modules = new Map();
  for (const [asset, files] of Object.entries(LAZY_MODULES)) {
    if (asset === within) continue;
    for (const file of files) modules.set(join(ROOT, file), { asset, names: await moduleExports(file) });
  }
  return {
    name: 'lazy-modules',
    setup(build) {
      build.onResolve({ filter: /\.ts$/ }, (args) => {
        const file = join(args.resolveDir, args.path);
        return modules.has(file) ? { path: file, namespace: 'lazy-module' } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: 'lazy-module' }, (args) => {
        const { asset, names } = modules.get(args.path);
        return { contents: assetStub(asset, names), loader: 'js' };
      });
    },
  };
}

/** The export of a LAZY_PACKAGE_PARTS asset that holds `file`'s exports: the file's name, say json-schema-processors. */
const partName = (file) => file.replace(/^.*\//, '').replace(/\.js$/, '');

/**
 * A part's stub, an ES module (a CommonJS stub would keep esbuild from
 * tree-shaking the package's modules that re-export it: zod's core would be
 * bundled whole): each exported function a wrapper that loads the asset when
 * called; any other export (zod's allProcessors table) a proxy that loads it
 * when read.
 */
function partStub(asset, part, exported) {
  const from = `__sidecar_init_load_asset(${JSON.stringify(asset)})[${JSON.stringify(part)}]`;
  return Object.entries(exported)
    .map(([name, value]) =>
      typeof value === 'function'
        ? `export function ${name}(...args) { return ${from}.${name}(...args); }`
        : `export const ${name} = new Proxy({}, { get: (_, key) => ${from}.${name}[key], has: (_, key) => key in ${from}.${name}, ownKeys: () => Reflect.ownKeys(${from}.${name}), getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(${from}.${name}, key) });`,
    )
    .join('\n');
}

/** Imports of a LAZY_PACKAGE_PARTS file resolve to its asset's stub, except inside that asset (`within`). */
async function lazyPackagePartsPlugin(within) {
  // The stub's path names the asset and part, not the file: the notices list the packages whose files are in the bundle.
  const parts = new Map();
  for (const [asset, files] of Object.entries(LAZY_PACKAGE_PARTS)) {
    if (asset === within) continue;
    for (const file of files) {
      const contents = partStub(asset, partName(file), await import(pathToFileURL(join(ROOT, file)).href));
      parts.set(join(ROOT, file), { path: `${asset}/${partName(file)}`, contents });
    }
  }
  const byStubPath = new Map([...parts.values()].map((stub) => [stub.path, stub]));
  return {
    name: 'lazy-package-parts',
    setup(build) {
      build.onResolve({ filter: /\.js$/ }, (args) => {
        const file = join(args.resolveDir, args.path);
        return parts.has(file) ? { path: parts.get(file).path, namespace: 'lazy-package-part' } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: 'lazy-package-part' }, (args) => {
        return { contents: byStubPath.get(args.path).contents, loader: 'js' };
      });
    },
  };
}

/** The options every build of src/ shares: the bundle's plugins, and import.meta.url as the bundle's URL. */
async function sourceBuildOptions(within) {
  return {
    // CommonJS has no import.meta; the few modules that locate files beside
    // themselves get the bundle's own URL (in the executable: the executable).
    define: { 'import.meta.url': '__sidecar_init_bundle_url', __SIDECAR_INIT_BUILD__: JSON.stringify(buildStamp()) },
    plugins: [
      KEEP_SOURCE_NAMES,
      COMMANDER_CHILD_PROCESS_ON_USE,
      PINO_UNUSED_PARTS,
      await lazyPackagesPlugin(),
      await lazyModulesPlugin(within),
      await lazyPackagePartsPlugin(within),
    ],
  };
}

/** Each lazy package and module as its own CommonJS asset; the inputs of their metafiles, for the notices and the SBOM. */
async function buildLazyAssets(dir, minify) {
  const inputs = {};
  const assets = [
    ...LAZY_PACKAGES.map((name) => ({ name, contents: `export * from ${JSON.stringify(name)};`, options: {} })),
    ...(await Promise.all(
      Object.entries(LAZY_MODULES).map(async ([name, files]) => ({
        name,
        contents: files.map((file) => `export * from ${JSON.stringify(`./${file}`)};`).join('\n'),
        options: { ...(await sourceBuildOptions(name)), banner: { js: ASSET_BANNER } },
      })),
    )),
    ...(await Promise.all(
      Object.entries(LAZY_PACKAGE_PARTS).map(async ([name, files]) => ({
        name,
        contents: files.map((file) => `export * as ${JSON.stringify(partName(file))} from ${JSON.stringify(`./${file}`)};`).join('\n'),
        options: { ...(await sourceBuildOptions(name)), banner: { js: ASSET_BANNER } },
      })),
    )),
  ];
  for (const { name, contents, options } of assets) {
    const result = await build({
      stdin: { contents, resolveDir: ROOT, loader: 'js', sourcefile: `${name}-asset.js` },
      outfile: join(dir, `${name}.cjs`),
      ...COMMON_BUILD_OPTIONS,
      ...options,
      minify,
      logLevel: 'warning',
    });
    for (const [input, value] of Object.entries(result.metafile.inputs)) if (input.includes('node_modules/')) inputs[input] = value;
  }
  return inputs;
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const UNKNOWN = 'unknown';

/**
 * What `sidecar-init version` says the bundle was built from: the commit
 * (`git rev-parse HEAD`, or $SOURCE_COMMIT when set, as for a build from a
 * tarball) and a time that is the commit's ($SOURCE_DATE_EPOCH when set, the
 * reproducible-builds convention), never the clock's: the same commit builds
 * the same bytes. "unknown" for what cannot be told (no git, not a checkout).
 * npm pack builds in a checkout, so a package carries its commit.
 */
export function buildStamp(env = process.env) {
  const commit = env.SOURCE_COMMIT || gitInRoot(['rev-parse', 'HEAD']) || UNKNOWN;
  const epoch = env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && epoch !== '') {
    if (!/^\d+$/.test(epoch)) throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970, got ${JSON.stringify(epoch)}`);
    return { commit, time: isoSeconds(new Date(Number(epoch) * 1000)) };
  }
  const committed = commit === UNKNOWN ? undefined : gitInRoot(['log', '-1', '--format=%cI', commit]);
  return { commit, time: committed === undefined ? UNKNOWN : isoSeconds(new Date(committed)) };
}

function isoSeconds(date) {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** git's answer about this checkout, or undefined: no git, or the folder is not a checkout's top (then another repository's commit would be told). */
function gitInRoot(args) {
  const run = (argv) => spawnSync('git', ['-C', ROOT, ...argv], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const top = run(['rev-parse', '--show-toplevel']);
  if (top.status !== 0 || realpathSync(top.stdout.trim()) !== realpathSync(ROOT)) return undefined;
  const result = run(args);
  return result.status === 0 && result.stdout.trim() !== '' ? result.stdout.trim() : undefined;
}

/**
 * The bundle: CommonJS, because a single executable's main script must be
 * CommonJS, and one bundle for both keeps what the tests run (bin/) the same
 * code as what users COPY (the executable). src/'s names are kept
 * (KEEP_SOURCE_NAMES).
 */
export async function buildBundle({ outfile = BUNDLE_FILE, minify = true } = {}) {
  const result = await build({
    entryPoints: ['src/main.ts'],
    outfile,
    ...COMMON_BUILD_OPTIONS,
    // Unminified only for a profile (bench/start-profile.ts), whose frames then carry module names.
    minify,
    ...(await sourceBuildOptions(undefined)),
    banner: { js: `var __sidecar_init_bundle_url=require('node:url').pathToFileURL(__filename).href;${ASSET_LOADER}` },
    logLevel: 'warning',
  });
  const assetInputs = await buildLazyAssets(join(dirname(outfile), 'assets'), minify);
  // What the notices and the SBOM list: everything the bundle and its assets carry.
  const metafile = { ...result.metafile, inputs: { ...result.metafile.inputs, ...assetInputs } };
  writeNotices(metafile, join(dirname(outfile), NOTICES_FILE));
  return { ...result, metafile };
}

/**
 * The bundle carries other projects' code; their licenses (MIT, ISC, …) ask
 * that their notices travel with it. One file with each bundled package's
 * name, version and license text, beside the bundle and in the npm package.
 */
function writeNotices(metafile, file) {
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match !== null) packages.set(match[1], true);
  }
  const sections = [...packages.keys()].sort().map((dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const licenseFile = readdirSync(dir).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
    const text = licenseFile === undefined ? `License: ${manifest.license}` : readFileSync(join(dir, licenseFile), 'utf8').trim();
    return `${manifest.name} ${manifest.version} (${manifest.license})\n\n${text}\n`;
  });
  writeFileSync(file, `sidecar-init bundles the following packages.\n\n${sections.join(`\n${'-'.repeat(72)}\n\n`)}`);
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildBundle();
  try {
    buildNative({ target: hostTarget() });
  } catch (error) {
    console.error(`build: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  // --all (npm pack): the other platforms' addons too, those this machine can compile.
  if (process.argv.includes('--all')) {
    try {
      buildOtherAddons({ required: process.env.SIDECAR_INIT_REQUIRE_ALL_ADDONS === '1' });
    } catch (error) {
      console.error(`build: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    }
  }
}

// Builds what bin/sidecar-init runs: one esbuild bundle (measured: 90 ms to
// start bundled vs 146 ms unbundled, DESIGN.md §2) and the native reaper addon.
import { build } from 'esbuild';
import { buildNative } from './build-native.mjs';

await build({
  entryPoints: ['src/main.ts'],
  outfile: 'dist/sidecar-init.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  minify: true,
  legalComments: 'external',
  // Bundled CommonJS dependencies (pino) call require() for Node built-ins,
  // which an ES module does not have.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
buildNative();

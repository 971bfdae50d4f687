// Mutation testing of the pure core: `npm run test:mutation` (slow, not part of
// npm test). docs/mutation-testing.md has the scores, how to read them, and the
// surviving mutants named there as equivalent, each with its reason.
//
// MUTATION_FOLDER=lifecycle|plan|config measures one folder of the core; unset,
// all three. Each has its own incremental file, so a rerun after a change tests
// only the mutants whose code or covering tests changed, and measuring one
// folder never throws away what is known about the others.

const CORE = ['lifecycle', 'plan', 'config'];
const folder = process.env.MUTATION_FOLDER;
if (folder !== undefined && folder !== '' && !CORE.includes(folder))
  throw new Error(`MUTATION_FOLDER=${folder} is not a folder of the core; use one of ${CORE.join(', ')}, or leave it unset for all three`);
const folders = folder ? [folder] : CORE;
const name = folder ? folder : 'core';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  // The TypeScript checker (which drops mutants that do not compile before any
  // test runs) is opt-in, `-- --checkers typescript`: on two shared cores it
  // would make an hour-long run longer still (docs/mutation-testing.md).
  checkers: [],
  tsconfigFile: 'tsconfig.json',
  mutate: [...folders.map((each) => `src/${each}/**/*.ts`), '!src/**/*.test.ts'],
  // Only the tests that cover a mutant run against it.
  coverageAnalysis: 'perTest',
  // The machine this runs on has two cores, often shared.
  concurrency: 2,
  incremental: true,
  incrementalFile: `reports/mutation/${name}/incremental.json`,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}/mutation.html` },
  jsonReporter: { fileName: `reports/mutation/${name}/mutation.json` },
  // Generous: a loaded machine must not turn a slow test run into a "timeout" (which counts as killed).
  timeoutMS: 10_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 85, break: null },
};

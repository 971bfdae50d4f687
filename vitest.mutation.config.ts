import { defineConfig } from 'vitest/config';

// The tests Stryker runs against each mutant of the pure core (npm run
// test:mutation, stryker.config.mjs): the unit tests beside src/lifecycle,
// src/plan and src/config, and those of src/cli, which parse flags and
// variables through src/config without a process. The process and PID-1 tests
// in test/ need the bundle and take minutes, so they stay out; so does the
// 4,000-case property test of the CLI inputs (src/cli/config-inputs.property.test.ts),
// which alone takes a minute.
export default defineConfig({
  test: {
    include: ['src/lifecycle/**/*.test.ts', 'src/plan/**/*.test.ts', 'src/config/**/*.test.ts', 'src/cli/**/*.test.ts'],
    exclude: ['src/cli/config-inputs.property.test.ts', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A property test draws a fresh seed each run; against mutants it must be the
    // same cases each time, or a mutant would be killed or survive by chance and
    // the incremental report would not be comparable between runs.
    env: { FC_SEED: '20261201', FC_RUNS: '300', SIDECAR_INIT_UNDER_MUTATION: '1' },
  },
});

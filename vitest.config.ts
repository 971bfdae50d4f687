import { defineConfig } from 'vitest/config';

// Integration tests start real processes and sometimes a whole PID namespace; a
// generous per-test bound keeps a hung supervisor from hanging CI, while each
// test still waits on events (exits, files, sockets), never on sleeps alone.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The container and cluster tiers have their own commands (npm run test:pod,
    // vitest.pod.config.ts; npm run test:cluster, vitest.cluster.config.ts).
    exclude: ['test/pod/**', 'test/cluster/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // expect.poll waits for an event another process causes; on a loaded machine
    // that can take seconds, so its default bound (1 s) is raised to a liveness bound.
    expect: { poll: { timeout: 10_000 } },
  },
});

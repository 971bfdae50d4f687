import { defineConfig } from 'vitest/config';

// Integration tests start real processes and sometimes a whole PID namespace; a
// generous per-test bound keeps a hung supervisor from hanging CI, while each
// test still waits on events (exits, files, sockets), never on sleeps alone.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The container tier has its own command (npm run test:pod, vitest.pod.config.ts).
    exclude: ['test/pod/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // expect.poll waits for an event another process causes; on a loaded machine
    // that can take seconds, so its default bound (1 s) is raised to a liveness bound.
    expect: { poll: { timeout: 10_000 } },
  },
});

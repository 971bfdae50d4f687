import { defineConfig } from 'vitest/config';

// The container tier: real pods played with `podman kube play` from the
// manifests in examples/k8s/. Needs root and podman (scripts/podman/setup.sh,
// run by the global setup, installs and configures it). One pod at a time: a
// pod is several containers and its own sidecar-init, and the machine is shared.
export default defineConfig({
  test: {
    include: ['test/pod/**/*.test.ts'],
    globalSetup: ['test/pod/global-setup.ts'],
    testTimeout: 120_000,
    // Building the Debian base image the first time takes about a minute.
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
  },
});

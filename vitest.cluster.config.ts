import { defineConfig } from 'vitest/config';

// The cluster tier: a real single-node Kubernetes (scripts/cluster/: etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler, kubelet,
// containerd, built from Go modules at pinned versions) started by the global
// setup, the example manifests applied with kubectl, each test judged by what
// the API server reports. Needs root. One test file at a time: one node, a
// shared 2-core machine.
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    globalSetup: ['test/cluster/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
  },
});

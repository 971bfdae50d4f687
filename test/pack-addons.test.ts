import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/docs.ts';
import { NODE } from './support/supervisor.ts';

// npm pack builds every platform's addon. On a machine without the arm64
// cross-compiler it failed ("no C compiler for linux-arm64 found"); now it
// builds what this machine can and says in one line what the package lacks,
// and only CI, which publishes, insists on every one.

const ARM64_ADDON = join(REPO_ROOT, 'dist/native/reaper-linux-arm64.node');
const BUILD_NATIVE = join(REPO_ROOT, 'scripts/build-native.mjs');

/** A PATH with every program of /usr/bin and /bin but the arm64 cross-compiler: a machine without gcc-aarch64-linux-gnu. */
function pathWithoutCrossCompiler(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const seen = new Set<string>();
  for (const source of ['/usr/bin', '/bin']) {
    for (const name of readdirSync(source)) {
      if (name.startsWith('aarch64-linux-gnu-') || seen.has(name)) continue;
      seen.add(name);
      symlinkSync(join(source, name), join(bin, name));
    }
  }
  return bin;
}

function buildOthers(path: string, env: Record<string, string> = {}) {
  const script = `import { buildOtherAddons } from ${JSON.stringify(BUILD_NATIVE)};
buildOtherAddons({ required: process.env.SIDECAR_INIT_REQUIRE_ALL_ADDONS === '1' });`;
  return spawnSync(NODE, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: path, ...env }, timeout: 60_000 });
}

describe.skipIf(process.arch !== 'x64')('npm pack without the arm64 cross-compiler', () => {
  it('builds what the machine can, says in one line what the package lacks and how to add it, and packs no stale arm64 addon', () => {
    // Beside the checkout, not under /tmp (a test's private tmpfs).
    const dir = mkdtempSync(join(REPO_ROOT, 'dist', '.pack-test-'));
    try {
      const path = pathWithoutCrossCompiler(dir);
      // One left by an earlier build, from other sources: it must not go into this package.
      writeFileSync(ARM64_ADDON, 'stale');
      const result = buildOthers(path);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toBe(
        'build: this package has no linux-arm64 addon (no aarch64-linux-gnu-gcc here; apt-get install gcc-aarch64-linux-gnu to include it)\n',
      );
      expect(existsSync(ARM64_ADDON)).toBe(false);
      // Where every addon is required (CI, which publishes), the missing compiler is the failure it is there.
      const required = buildOthers(path, { SIDECAR_INIT_REQUIRE_ALL_ADDONS: '1' });
      expect(required.status).not.toBe(0);
      expect(required.stderr).toContain(
        'no C compiler for linux-arm64 found (tried aarch64-linux-gnu-gcc): apt-get install gcc-aarch64-linux-gnu',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(ARM64_ADDON, { force: true });
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/**
 * Fresh folders under the test's /tmp, each removed after the test that made
 * it. Call at the top of a test file: `const tempDir = useTempDirs('install')`.
 * Register it before any afterEach that stops a process using the folders:
 * after-hooks run last-registered first, so the processes stop before their
 * folders go.
 */
export function useTempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `sidecar-init-${prefix}-`));
    dirs.push(dir);
    return dir;
  };
}

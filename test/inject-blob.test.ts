import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/docs.ts';
import { NODE } from './support/supervisor.ts';

// `npm run build:binary` printed twelve lines of postject's LIEF,
// "warning: Can't find string offset for section name '.note.100'", one per
// nameless note section it makes; they are dropped, and nothing else is.

describe('putting the blob into Node', () => {
  it('drops exactly the nameless-note warnings of LIEF', async () => {
    // A plain script of the build, loaded by its path (it has no types).
    const { isNamelessNoteWarning } = (await import(join(REPO_ROOT, 'scripts/inject-blob.mjs'))) as {
      isNamelessNoteWarning(text: string): boolean;
    };
    expect(isNamelessNoteWarning("warning: Can't find string offset for section name '.note.100'")).toBe(true);
    expect(isNamelessNoteWarning("warning: Can't find string offset for section name '.note'")).toBe(true);
    expect(isNamelessNoteWarning("warning: Can't find string offset for section name '.text'")).toBe(false);
    expect(isNamelessNoteWarning('warning: something else')).toBe(false);
  });

  it('writes nothing but what is not that warning, and the blob is in (the fuse flipped)', () => {
    // Beside the checkout, not under /tmp (a test's private tmpfs): a copy of the Node the executable is built from.
    const dir = mkdtempSync(join(REPO_ROOT, 'dist', '.inject-test-'));
    try {
      const file = join(dir, 'node');
      copyFileSync(NODE, file);
      const script = `import { injectBlob } from ${JSON.stringify(join(REPO_ROOT, 'scripts/inject-blob.mjs'))};
console.warn('warning: a line that stays');
await injectBlob(${JSON.stringify(file)}, 'NODE_SEA_BLOB', Buffer.from('blob'), { sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2' });`;
      const result = spawnSync(NODE, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: REPO_ROOT, timeout: 120_000 });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toBe('warning: a line that stays\n');
      // Injected: postject flipped the fuse Node reads to know it carries a blob.
      expect(readFileSync(file).includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

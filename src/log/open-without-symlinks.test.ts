import { closeSync, constants, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWithoutSymlinks } from './open-without-symlinks.ts';
import { useTempDirs } from '../../test/support/temp-dirs.ts';

const tempDir = useTempDirs('nofollow');

/** base/real/file, base/elsewhere/file, and base/link -> elsewhere. */
function tree(): string {
  const base = tempDir();
  for (const folder of ['real', 'elsewhere']) {
    mkdirSync(join(base, folder));
    writeFileSync(join(base, folder, 'file'), `${folder}\n`);
  }
  symlinkSync(join(base, 'elsewhere'), join(base, 'link'));
  return base;
}

async function write(path: string, text: string): Promise<void> {
  const fd = await openWithoutSymlinks(path, constants.O_WRONLY | constants.O_TRUNC, 0o644);
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

describe('openWithoutSymlinks', () => {
  it('opens a file through plain folders', async () => {
    const base = tree();
    await write(join(base, 'real', 'file'), 'written\n');
    expect(readFileSync(join(base, 'real', 'file'), 'utf8')).toBe('written\n');
  });

  it('refuses a symlink anywhere on the path, naming the component', async () => {
    const base = tree();
    await expect(write(join(base, 'link', 'file'), 'x')).rejects.toMatchObject({
      code: 'ENOTDIR',
      message: `${join(base, 'link')}: not a folder (a symlink is not followed)`,
    });
    symlinkSync(join(base, 'elsewhere', 'file'), join(base, 'real', 'linked'));
    await expect(write(join(base, 'real', 'linked'), 'x')).rejects.toMatchObject({
      code: 'ELOOP',
      message: `${join(base, 'real', 'linked')}: a symlink, which is not followed`,
    });
    expect(readFileSync(join(base, 'elsewhere', 'file'), 'utf8')).toBe('elsewhere\n');
  });

  it('takes .. lexically, as it means when no symlink is followed', async () => {
    const base = tree();
    // deep -> elsewhere/sub: followed, deep/../real would be elsewhere/real; without symlinks it is base/real.
    mkdirSync(join(base, 'elsewhere', 'sub'));
    mkdirSync(join(base, 'elsewhere', 'real'));
    writeFileSync(join(base, 'elsewhere', 'real', 'file'), 'elsewhere\n');
    symlinkSync(join(base, 'elsewhere', 'sub'), join(base, 'deep'));
    await write(`${base}/deep/../real/./file`, 'lexical\n');
    expect(readFileSync(join(base, 'real', 'file'), 'utf8')).toBe('lexical\n');
    expect(readFileSync(join(base, 'elsewhere', 'real', 'file'), 'utf8')).toBe('elsewhere\n');
  });

  it('refuses a relative path, or one that names no file', async () => {
    await expect(openWithoutSymlinks('relative/file', constants.O_RDONLY, 0)).rejects.toMatchObject({ code: 'EINVAL' });
    await expect(openWithoutSymlinks('/', constants.O_RDONLY, 0)).rejects.toMatchObject({ code: 'EINVAL' });
  });
});

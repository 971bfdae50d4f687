// The modules and packages built into assets of their own (scripts/build.mjs,
// LAZY_PACKAGES and LAZY_MODULES) are loaded only by the commands that use
// them: a plain run needs none of them, and a command whose asset is missing
// says which one and how to get it. Run on a copy of bin/ and dist/, from which
// the assets are removed.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE } from './support/supervisor.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const copy = mkdtempSync(join(tmpdir(), 'sidecar-init-lazy-assets-'));
cpSync(join(ROOT, 'bin'), join(copy, 'bin'), { recursive: true });
cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const run = (args: string[]) => spawnSync(NODE, [join(copy, 'bin/sidecar-init'), ...args], { encoding: 'utf8', timeout: 60_000 });

describe('assets compiled on first use', () => {
  it('a plain run needs none of them, and a command whose asset is missing names it and how to build it', () => {
    const assets = readdirSync(join(copy, 'dist/assets'));
    expect(assets).toContain('plan-printer.cjs');
    for (const asset of assets) rmSync(join(copy, 'dist/assets', asset));

    const plain = run(['--', 'true']);
    expect(plain.stderr).toContain('"event":"exit"');
    expect(plain.stderr).not.toContain('asset');
    expect(plain.status).toBe(0);

    const plan = run(['plan', '--', 'true']);
    expect(plan.status).not.toBe(0);
    expect(plan.stderr).toContain(`sidecar-init's asset plan-printer.cjs is missing`);
    expect(plan.stderr).toContain('npm run build');
  });
});

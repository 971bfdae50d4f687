import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, BIN_COMMAND, NODE } from './support/supervisor.ts';

// `sidecar-init version` from what users run: the bundle (bin/sidecar-init),
// or the single executable under npm run test:binary. The commit and time are
// those scripts/build.mjs stamped when `npm run build` (or build:binary) ran
// in this checkout.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILD_SCRIPT = join(ROOT, 'scripts/build.mjs');
const ADDON = join(ROOT, `dist/native/reaper-linux-${process.arch}.node`);
const { version: VERSION } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const IS_EXECUTABLE = BIN_COMMAND.length === 1;
const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-version-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function sidecarInit(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const [command = BIN, ...rest] = BIN_COMMAND;
  return spawnSync(command, [...rest, ...args], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', ...env }, timeout: 20_000 });
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function git(...args: string[]): string {
  const result = spawnSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** What scripts/build.mjs stamps with `env`, asked of the script itself. */
function stampWith(env: NodeJS.ProcessEnv) {
  const script = `import { buildStamp } from ${JSON.stringify(BUILD_SCRIPT)}; console.log(JSON.stringify(buildStamp()));`;
  return spawnSync(NODE, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
}

describe('sidecar-init version --json', () => {
  it('names the version, the commit and its time, Node, the platform and the addon loaded with its sha256', () => {
    const result = sidecarInit(['version', '--json']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    const commit = git('rev-parse', 'HEAD');
    expect(report).toEqual({
      version: VERSION,
      commit,
      buildTime: new Date(git('log', '-1', '--format=%cI', commit)).toISOString().replace('.000Z', 'Z'),
      node: IS_EXECUTABLE ? expect.stringMatching(/^v\d+\.\d+\.\d+$/) : process.version,
      platform: 'linux',
      arch: process.arch,
      libc: expect.stringMatching(/^glibc \d+\.\d+$/),
      runtime: IS_EXECUTABLE ? 'single executable' : 'node',
      executable: IS_EXECUTABLE ? BIN : NODE,
      // The executable carries the addon the same build put in dist/native/.
      addon: IS_EXECUTABLE ? { kind: 'embedded', sha256: sha256(ADDON) } : { kind: 'file', path: ADDON, sha256: sha256(ADDON) },
    });
  });

  it('hashes the addon it loaded: another file given by SIDECAR_INIT_NATIVE_ADDON is named with its own sha256', () => {
    // The same addon with bytes after its end: still loadable, and a hash no build has.
    const other = join(dir, 'other-reaper.node');
    copyFileSync(ADDON, other);
    appendFileSync(other, 'not part of any build');
    const result = sidecarInit(['version', '--json'], { SIDECAR_INIT_NATIVE_ADDON: other });
    expect(result.status).toBe(0);
    const { addon } = JSON.parse(result.stdout) as { addon: unknown };
    expect(addon).toEqual({ kind: 'file', path: other, sha256: sha256(other) });
    expect(sha256(other)).not.toBe(sha256(ADDON));
  });

  it('says why when the addon cannot be loaded, and exits 1 as a run would', () => {
    const missing = join(dir, 'missing.node');
    const result = sidecarInit(['version', '--json'], { SIDECAR_INIT_NATIVE_ADDON: missing });
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      version: VERSION,
      addon: { kind: 'not-loaded', error: expect.stringContaining(`SIDECAR_INIT_NATIVE_ADDON=${missing}: no such file`) },
    });
  });

  it('keeps --version to one line; version and --version --verbose print the same report as text', () => {
    expect(sidecarInit(['--version']).stdout).toBe(`${VERSION}\n`);
    const text = sidecarInit(['version']);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`sidecar-init ${VERSION}\nplatform: linux-${process.arch} (glibc `);
    expect(text.stdout).toContain(`\ncommit: ${git('rev-parse', 'HEAD')}\n`);
    expect(text.stdout).toContain(`\naddon: ${IS_EXECUTABLE ? 'embedded in the executable' : ADDON} (sha256 ${sha256(ADDON)})\n`);
    expect(sidecarInit(['--version', '--verbose']).stdout).toBe(text.stdout);
  });
});

describe('the build stamp (scripts/build.mjs)', () => {
  it('is the commit and the commit’s time, not the time of the build, so the same commit builds the same bytes', () => {
    const result = stampWith({});
    expect(result.stderr).toBe('');
    const commit = git('rev-parse', 'HEAD');
    expect(JSON.parse(result.stdout)).toEqual({
      commit,
      time: new Date(Number(git('log', '-1', '--format=%ct', commit)) * 1000).toISOString().replace('.000Z', 'Z'),
    });
  });

  it('takes SOURCE_DATE_EPOCH and SOURCE_COMMIT when set, and refuses an epoch that is not whole seconds', () => {
    const given = stampWith({ SOURCE_DATE_EPOCH: '1700000000', SOURCE_COMMIT: 'c0ffee' });
    expect(JSON.parse(given.stdout)).toEqual({ commit: 'c0ffee', time: '2023-11-14T22:13:20Z' });
    const bad = stampWith({ SOURCE_DATE_EPOCH: 'yesterday' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('SOURCE_DATE_EPOCH must be whole seconds since 1970, got "yesterday"');
  });
});

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// scripts/test-prerequisites.sh, which npm test runs first: the one list of
// Debian packages the tests need, and the table in docs/development.md that
// explains it.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/test-prerequisites.sh');
const NOBODY = 65534;
const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-prerequisites-'));
chmodSync(dir, 0o755);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The packages each set asks for, read from the script's want_SET functions. */
function scriptPackages(): Map<string, Set<string>> {
  const text = readFileSync(SCRIPT, 'utf8');
  const sets = new Map<string, Set<string>>();
  for (const [, set = '', body = ''] of text.matchAll(/^want_(\w+)\(\) \{\n([\s\S]*?)^\}/gm)) {
    const packages = [...body.matchAll(/^\s*need \S+ (.+)$/gm), ...body.matchAll(/missing\+=\((.+)\)/g)].flatMap(([, list = '']) =>
      list.trim().split(/\s+/),
    );
    sets.set(set, new Set(packages));
  }
  return sets;
}

/** The packages each set lists in docs/development.md's table. */
function documentedPackages(): Map<string, Set<string>> {
  const text = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
  const sets = new Map<string, Set<string>>();
  for (const [, set = '', packages = ''] of text.matchAll(/^\| `(\w+)` \|[^|]*\| ([^|]*) \|[^|]*\|$/gm)) {
    const names = [...packages.matchAll(/`([^`]+)`/g)].map(([, name = '']) => name);
    sets.set(set, new Set([...(sets.get(set) ?? []), ...names]));
  }
  return sets;
}

/** A folder for PATH with the tools the script itself runs (id, awk, tr) and empty executables named `standIns`. */
function createPath(name: string, standIns: readonly string[]): string {
  const bin = join(dir, name);
  mkdirSync(bin, { mode: 0o755 });
  for (const tool of ['id', 'awk', 'tr']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
  for (const program of standIns) writeFileSync(join(bin, program), '', { mode: 0o755 });
  return bin;
}

/** The script as nobody, who cannot install anything whatever it decides, with PATH `bin`. */
function runAsNobody(bin: string) {
  return spawnSync('/usr/bin/setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '/bin/bash', SCRIPT], {
    encoding: 'utf8',
    env: { PATH: bin },
    timeout: 20_000,
  });
}

describe('scripts/test-prerequisites.sh', () => {
  it('lists in docs/development.md exactly the packages it installs, set by set', () => {
    const listed = scriptPackages();
    expect([...listed.keys()]).toEqual(['test', 'binary', 'arm64']);
    expect(documentedPackages()).toEqual(listed);
  });

  it('as another user than root, installs nothing and stops at once with the apt-get line to run as root', () => {
    // A PATH with only what the script itself runs, so every program the tests need is missing.
    const result = runAsNobody(createPath('bare', []));
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const [, line] = /^ {2}(apt-get update && apt-get install .*)$/m.exec(result.stderr) ?? [];
    // python3's packages are asked for only where /usr/bin/python3 lacks the parser, which PATH does not change.
    expect(line?.replace(/ python3\S*/g, '')).toBe(
      'apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev util-linux bsdutils systemd s6 openssl git',
    );
    expect(result.stderr).toMatch(/^The tests need Debian packages that are missing here: gcc libc6-dev /);
  });

  it('with every program there, only looks: exit 0 and nothing printed, unless /usr/bin/python3 lacks the parser', () => {
    // Stand-ins (empty executables) for every program the set asks for: the script looks, never runs them.
    const result = runAsNobody(createPath('full', ['cc', 'unshare', 'setpriv', 'script', 'systemd-notify', 's6-svscan', 'openssl', 'git']));
    const hasParser = spawnSync('/usr/bin/python3', ['-c', 'import prometheus_client']).status === 0;
    if (hasParser) {
      expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
    } else {
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/^The tests need Debian packages that are missing here: (python3 )?python3-prometheus-client\n/);
    }
  });

  it('refuses a set it does not know, naming the known ones', () => {
    const result = spawnSync('/bin/bash', [SCRIPT, 'everything'], { encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('test-prerequisites.sh: unknown set everything (known: test, binary, arm64)\n');
  });
});

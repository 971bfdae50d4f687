// The image's base layer: what Node links (glibc, libstdc++, libgcc_s) from
// Debian bookworm's own packages, at the versions and sha256 pinned in
// base-packages.json, unpacked into one layer; as the Dockerfile's
// distroless/cc base, and nothing else (no shell, no package manager). The
// packages come through apt (signed archive, checked hashes) with a private
// state folder, so this machine's apt configuration and lists are untouched,
// and they are checked against the pins, so the layer is the same bytes
// wherever it is made. When Debian replaces a pinned version (a security
// update), the release fails until the pins are updated:
//
//   node scripts/release/base-layer.mjs --update-pins
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PINS_FILE = join(ROOT, 'scripts/release/base-packages.json');
const CACHE = join(ROOT, '.cache/debian');
/** libc6 (glibc and the dynamic loader), libgcc-s1 and libstdc++6 are what Node links; gcc-12-base is what the latter two depend on. */
export const BASE_PACKAGES = ['libc6', 'libgcc-s1', 'libstdc++6', 'gcc-12-base'];
const SOURCES = 'deb http://deb.debian.org/debian bookworm main\ndeb http://deb.debian.org/debian-security bookworm-security main\n';

/**
 * The base layer's files for `arch` (Debian's name: amd64, arm64), as tar
 * entries: the packages' files, plus an /etc/passwd and /etc/group with root
 * and nobody (names sidecar-init's --user resolves) and a /tmp anyone can write.
 */
export function baseEntries(arch) {
  const pins = readPins()[arch];
  const unpacked = mkdtempSync(join(tmpdir(), 'sidecar-init-base-'));
  try {
    for (const name of BASE_PACKAGES) {
      run('dpkg-deb', ['-x', debFile(arch, name, pins[name]), unpacked], `unpack ${name}`);
    }
    mkdirSync(join(unpacked, 'tmp'));
    chmodSync(join(unpacked, 'tmp'), 0o1777);
    writeFileSync(
      join(unpacked, 'etc/passwd'),
      'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n',
    );
    writeFileSync(join(unpacked, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n');
    return {
      unpacked,
      cleanup: () => rmSync(unpacked, { recursive: true, force: true }),
      packages: BASE_PACKAGES.map((name) => ({ name, ...pins[name] })),
    };
  } catch (error) {
    rmSync(unpacked, { recursive: true, force: true });
    throw error;
  }
}

function readPins() {
  return JSON.parse(readFileSync(PINS_FILE, 'utf8'));
}

/** The pinned .deb, fetched into .cache/debian/ARCH/ once, checked against its pinned sha256 every time. */
function debFile(arch, name, pin) {
  const dir = join(CACHE, arch);
  const file = join(dir, `${name}_${pin.version.replace(/^\d+:/, '')}_${arch}.deb`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const apt = aptState(arch);
    run(
      'apt-get',
      [...apt.options, 'download', `${name}:${arch}=${pin.version}`],
      `download ${name}:${arch}=${pin.version} (is it still in bookworm? else update the pins)`,
      dir,
    );
  }
  const digest = createHash('sha256').update(readFileSync(file)).digest('hex');
  if (digest !== pin.sha256) throw new Error(`${file} has sha256 ${digest}, not the pinned ${pin.sha256}: remove it, or update the pins`);
  return file;
}

/** apt's options for a private state under .cache/debian/apt-ARCH (its own sources, lists, cache, no lock on the system's). */
function aptState(arch) {
  const state = join(CACHE, `apt-${arch}`);
  const options = [
    `-o`,
    `APT::Architecture=${arch}`,
    `-o`,
    `APT::Architectures::=${arch}`,
    `-o`,
    `Dir::Etc::SourceList=${join(state, 'sources.list')}`,
    `-o`,
    `Dir::Etc::SourceParts=${join(state, 'sources.list.d')}`,
    `-o`,
    `Dir::State::Lists=${join(state, 'lists')}`,
    `-o`,
    `Dir::State::status=${join(state, 'status')}`,
    `-o`,
    `Dir::Cache=${join(state, 'cache')}`,
    `-o`,
    'Debug::NoLocking=1',
    // apt drops to _apt for downloads, which cannot write into the cache folder.
    `-o`,
    'APT::Sandbox::User=root',
  ];
  if (!existsSync(join(state, 'lists/updated'))) {
    for (const sub of ['lists/partial', 'cache/archives/partial', 'sources.list.d']) mkdirSync(join(state, sub), { recursive: true });
    writeFileSync(join(state, 'sources.list'), SOURCES);
    writeFileSync(join(state, 'status'), '');
    run('apt-get', [...options, 'update'], `apt-get update for ${arch}`);
    writeFileSync(join(state, 'lists/updated'), '');
  }
  return { options, state };
}

/** Pins what bookworm serves today, for both architectures. */
function updatePins() {
  const pins = {};
  for (const arch of ['amd64', 'arm64']) {
    rmSync(join(CACHE, `apt-${arch}`), { recursive: true, force: true });
    const apt = aptState(arch);
    pins[arch] = {};
    for (const name of BASE_PACKAGES) {
      const shown = run('apt-cache', [...apt.options, 'show', '--no-all-versions', `${name}:${arch}`], `apt-cache show ${name}:${arch}`);
      const field = (key) => new RegExp(`^${key}: (.*)$`, 'm').exec(shown)?.[1];
      pins[arch][name] = { version: field('Version'), sha256: field('SHA256') };
    }
  }
  writeFileSync(PINS_FILE, `${JSON.stringify(pins, null, 2)}\n`);
  return pins;
}

function run(command, args, what, cwd) {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd });
  if (result.status !== 0) {
    throw new Error(`could not ${what}: ${command} ${args.join(' ')}: ${result.error?.message ?? result.stderr.trim()}`);
  }
  return result.stdout;
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv[2] !== '--update-pins') {
    console.error('usage: base-layer.mjs --update-pins');
    process.exit(2);
  }
  console.log(JSON.stringify(updatePins(), null, 2));
}

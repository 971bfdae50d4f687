import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { costOfRun, reportSpread, SIDECAR_INIT_BINARY, sampleInterleaved, spreadOf } from './measure.ts';
import type { Contender, RunCost } from './measure.ts';

// `npm run bench -- --only any-image` (root, musl-gcc from musl-tools): what
// starting in an image without glibc costs. Three starts of `-- true` as PID 1
// of a new PID namespace, interleaved: the executable itself as a glibc image
// runs it (what COPY gave before the launcher), what `sidecar-init install`
// writes (the launcher execs the carried glibc loader on the executable) in
// the same glibc root, and the same installed files chrooted into a root
// holding only musl's loader and a musl `true`. Then what the runtime adds in
// bytes, read from the files install wrote.
const RUNS = Number(process.env.ANY_IMAGE_RUNS ?? 20);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const INSTALL_DIR = 'opt/sidecar-init';
const MIB = 1024 * 1024;

export function run(): void {
  const binary = SIDECAR_INIT_BINARY;
  if (binary === undefined) throw new Error('any-image needs dist/sidecar-init: npm run build:binary');
  const work = mkdtempSync(join(tmpdir(), 'sidecar-init-any-image-bench-'));
  try {
    const musl = join(work, 'musl-root');
    for (const dir of ['proc', 'lib', 'app', INSTALL_DIR]) mkdirSync(join(musl, dir), { recursive: true });
    must('install', spawnSync(binary, ['install', join(musl, INSTALL_DIR)], { encoding: 'utf8' }));
    copyFileSync('/lib/ld-musl-x86_64.so.1', join(musl, 'lib/ld-musl-x86_64.so.1'));
    writeFileSync(join(work, 'true.c'), 'int main(void) { return 0; }\n');
    must('musl-gcc', spawnSync('musl-gcc', ['-O2', '-o', join(musl, 'app/true'), join(work, 'true.c')], { encoding: 'utf8' }));
    const installed = join(musl, INSTALL_DIR, 'sidecar-init');
    const pid1 = ['unshare', '--pid', '--fork', '--mount-proc'];
    const contenders: Contender[] = [
      { name: 'executable, glibc root', argv: () => [...pid1, binary, '--', 'true'] },
      { name: 'installed, glibc root', argv: () => [...pid1, installed, '--', 'true'] },
      {
        name: 'installed, musl root',
        argv: () => [
          'unshare',
          '--pid',
          '--fork',
          `--mount-proc=${musl}/proc`,
          'chroot',
          musl,
          `/${INSTALL_DIR}/sidecar-init`,
          '--',
          '/app/true',
        ],
      },
    ];
    const samples = sampleInterleaved(RUNS, contenders, (contender) => costOfRun(contender.argv([])));
    const spreads = (part: keyof RunCost) =>
      new Map([...samples].map(([name, costs]) => [name, spreadOf(costs.map((cost) => cost[part]))]));
    const baseline = contenders[0]!.name;
    reportSpread(
      `start, run true, exit, as PID 1 of a new PID namespace: wall time (median of ${RUNS}, middle half)`,
      'ms',
      spreads('wallMs'),
      baseline,
    );
    reportSpread('the same: CPU time of the run (user + system, with its children)', 'ms', spreads('cpuMs'), baseline);

    const runtimeDir = join(musl, INSTALL_DIR, 'sidecar-init.runtime');
    const manifest = JSON.parse(readFileSync(join(ROOT, 'dist', `runtime-linux-${process.arch}.json`), 'utf8')) as {
      files: { name: string }[];
    };
    const runtimeBytes = manifest.files.reduce((sum, file) => sum + statSync(join(runtimeDir, file.name)).size, 0);
    const launcherBytes = statSync(installed).size;
    console.log('\nwhat the glibc runtime adds');
    console.log(
      `  DIR/sidecar-init.runtime/, loader and libraries  ${(runtimeBytes / MIB).toFixed(2)} MiB (${manifest.files.length} files)`,
    );
    console.log(`  DIR/sidecar-init, the launcher                   ${launcherBytes} bytes`);
    console.log(`  the executable, carrying both as assets          ${((runtimeBytes + launcherBytes) / MIB).toFixed(2)} MiB more`);
    console.log(`  the executable now                               ${(statSync(binary).size / MIB).toFixed(2)} MiB`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function must(what: string, result: ReturnType<typeof spawnSync>): void {
  if (result.status !== 0) throw new Error(`${what} failed (${result.status}): ${String(result.stderr)}`);
}

if (import.meta.main) run();

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { HOST_ONLY, PROC_SHOWS_KTHREADD } from '../../test/support/namespaces.ts';
import { describeNamespaceMode, detectNamespaceMode, seesHostProcesses } from './namespace-mode.ts';

// Each case in a PID namespace of its own (unshare, as root), so what is
// visible is exactly what the case starts; with its own /proc (--mount-proc)
// unless the case is about reading the outer one.
const MODULE = fileURLToPath(new URL('./namespace-mode.ts', import.meta.url));
const PRINT = `import { detectNamespaceMode, seesHostProcesses } from ${JSON.stringify(MODULE)}; console.log(JSON.stringify({ ...(await detectNamespaceMode()), host: seesHostProcesses() }));`;

function detectInNamespace(shell: string, { mountProc = true } = {}): unknown {
  const node = `'${process.execPath}' --input-type=module -e "$PRINT"`;
  const result = spawnSync(
    'unshare',
    ['--pid', '--fork', ...(mountProc ? ['--mount-proc'] : []), 'sh', '-c', shell.replace('NODE', node)],
    {
      env: { ...process.env, PRINT },
      encoding: 'utf8',
      timeout: 20_000,
    },
  );
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout);
}

describe('detectNamespaceMode', () => {
  test('PID 1 of its namespace', () => {
    expect(detectInNamespace('exec NODE')).toEqual({ kind: 'pid1', host: false });
  });

  test('a subreaper when only its own ancestors are visible', () => {
    expect(detectInNamespace('NODE; true')).toEqual({ kind: 'subreaper', host: false });
  });

  test('a shared namespace when processes of others are visible, counted', () => {
    // Two sleepers stand for a pause process and a proxy of sibling containers.
    expect(detectInNamespace('sleep 30 & a=$!; sleep 30 & b=$!; NODE; kill $a $b')).toEqual({ kind: 'shared', foreign: 2, host: false });
  });

  test(`sees the host’s processes where /proc shows kthreadd, also as PID 1 of a namespace of its own that reads that /proc (${HOST_ONLY})`, (context) => {
    context.skip(!PROC_SHOWS_KTHREADD, HOST_ONLY);
    expect(seesHostProcesses()).toBe(true);
    // A new PID namespace without --mount-proc: PID 1 there, reading the host's /proc.
    expect(detectInNamespace('exec NODE', { mountProc: false })).toEqual({ kind: 'pid1', host: true });
  });

  test(`is the host's namespace, not a shared one, where /proc shows the host's processes and sidecar-init is not PID 1 (${HOST_ONLY})`, async (context) => {
    context.skip(!PROC_SHOWS_KTHREADD, HOST_ONLY);
    // Where the test itself runs: this process is not PID 1, and the host's are visible.
    expect(await detectNamespaceMode()).toMatchObject({ kind: 'host' });
    // Not PID 1 of a namespace of its own, reading the host's /proc.
    expect(detectInNamespace('NODE; true', { mountProc: false })).toMatchObject({ kind: 'host', host: true });
  });

  test('is described for the start line', () => {
    // Each kind given, not detected: what the test host shows outside a
    // namespace of its own differs from one machine to the next.
    expect(describeNamespaceMode({ kind: 'pid1' })).toBe('running as PID 1');
    expect(describeNamespaceMode({ kind: 'subreaper' })).toBe('running as a subreaper');
    expect(describeNamespaceMode({ kind: 'shared', foreign: 1 })).toBe(
      'running as a subreaper in a shared PID namespace, where 1 process of other containers is visible',
    );
    expect(describeNamespaceMode({ kind: 'shared', foreign: 3 })).toBe(
      'running as a subreaper in a shared PID namespace, where 3 processes of other containers are visible',
    );
    // The same words as the refusal of externals there (host-namespace.ts).
    expect(describeNamespaceMode({ kind: 'host', foreign: 25 })).toBe(
      "running as a subreaper in the host's PID namespace (sidecar-init sees the host's processes, 25 besides its own)",
    );
  });
});

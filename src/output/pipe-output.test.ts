import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLineFormat } from './line-format.ts';
import { createLineWriter } from './line-writer.ts';
import type { OutputStreamName } from './output-mode.ts';
import { pipeOutput } from './pipe-output.ts';

// Real children writing through real pipes to a real reader (cat into a file),
// which the back-pressure test stops with SIGSTOP: a log reader that stalls.

const POLL_MS = 10;
const WAIT_MS = 15_000;

async function waitUntil(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function procField(pid: number, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
}

/** The state letter of /proc/PID/stat (R, S, T, Z...). */
function procState(pid: number): string {
  const stat = procField(pid, 'stat');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

/** Node's stdio pipes are socket pairs, so the kernel function it waits in varies; the system call does not. */
const WRITE_SYSCALL: Partial<Record<NodeJS.Architecture, string>> = { x64: '1', arm64: '64' };

/** Asleep inside write(2): /proc/PID/syscall starts with the number of the call it is in. */
function isBlockedInWrite(pid: number): boolean {
  const call = WRITE_SYSCALL[process.arch];
  if (call === undefined) throw new Error(`no write(2) number known for ${process.arch}`);
  return procState(pid) === 'S' && procField(pid, 'syscall').split(' ')[0] === call;
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

describe('pipeOutput', () => {
  let dir: string;
  const started: ChildProcess[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sidecar-init-output-'));
  });

  afterEach(async () => {
    for (const child of started) {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        process.kill(child.pid, 'SIGCONT');
        child.kill('SIGKILL');
        await exited(child);
      }
    }
    started.length = 0;
    rmSync(dir, { recursive: true, force: true });
  });

  /** A reader process that writes what it reads to a file: its stdin is the sink (a non-blocking pipe). */
  function startReader(file: string): { reader: ChildProcess; sink: Writable } {
    const fd = openSync(join(dir, file), 'w');
    const reader = spawn('cat', [], { stdio: ['pipe', fd, 'inherit'] });
    closeSync(fd);
    started.push(reader);
    if (reader.stdin === null) throw new Error('cat has no stdin');
    reader.stdin.on('error', () => {});
    return { reader, sink: reader.stdin };
  }

  function startWriter(script: string): ChildProcess {
    const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    started.push(child);
    return child;
  }

  function prefixWriter(name: string, stream: OutputStreamName) {
    return createLineWriter(createLineFormat({ mode: 'prefix', name, width: 6, stream }));
  }

  async function finish(reader: ChildProcess, sink: Writable): Promise<void> {
    sink.end();
    await exited(reader);
  }

  it('keeps every line of stdout and of stderr, each stream in order, on its own sink', async () => {
    const out = startReader('out');
    const err = startReader('err');
    const child = startWriter('i=0; while [ $i -lt 3000 ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done; printf "last"');
    await Promise.all([
      pipeOutput(child.stdout!, prefixWriter('job', 'stdout'), out.sink),
      pipeOutput(child.stderr!, prefixWriter('job', 'stderr'), err.sink),
      exited(child),
    ]);
    await finish(out.reader, out.sink);
    await finish(err.reader, err.sink);
    const expected = (stream: string) => Array.from({ length: 3000 }, (_, i) => `job    | ${stream} ${i}\n`).join('');
    expect(readFileSync(join(dir, 'out'), 'utf8')).toBe(`${expected('out')}job    | last\n`);
    expect(readFileSync(join(dir, 'err'), 'utf8')).toBe(expected('err'));
  });

  it('blocks a child whose log reader stalls, holding a bounded amount, and delivers everything once it reads again', async () => {
    const { reader, sink } = startReader('out');
    process.kill(reader.pid!, 'SIGSTOP');
    await waitUntil('the reader is stopped', () => procState(reader.pid!) === 'T');

    const lineCount = 2_000_000; // about 15 MB of output, far more than any buffer on the way
    const child = startWriter(`exec seq 1 ${lineCount}`);
    let bytesTaken = 0;
    child.stdout!.on('data', (chunk: Buffer) => {
      bytesTaken += chunk.length;
    });
    const writer = prefixWriter('seq', 'stdout');
    const done = pipeOutput(child.stdout!, writer, sink);

    // The child is blocked writing into its full pipe: nothing is read from it any more.
    await waitUntil('the child blocks in write()', () => isBlockedInWrite(child.pid!) && child.stdout!.isPaused());
    expect(child.exitCode).toBeNull();
    const held = writer.readableLength + writer.writableLength + sink.writableLength;
    expect(held).toBeLessThan(1024 * 1024);
    expect(bytesTaken).toBeLessThan(4 * 1024 * 1024);

    process.kill(reader.pid!, 'SIGCONT');
    expect(await exited(child)).toBe(0);
    await done;
    await finish(reader, sink);
    const lines = readFileSync(join(dir, 'out'), 'utf8').split('\n');
    expect(lines.length).toBe(lineCount + 1);
    expect(lines[0]).toBe('seq    | 1');
    expect(lines[lineCount - 1]).toBe(`seq    | ${lineCount}`);
    expect(lines.every((line, index) => index === lineCount || line === `seq    | ${index + 1}`)).toBe(true);
  });

  it('lets a child finish when its log reader is gone, dropping its output', async () => {
    const { reader, sink } = startReader('out');
    reader.kill('SIGKILL');
    await exited(reader);
    const child = startWriter('seq 1 200000');
    const [code] = await Promise.all([exited(child), pipeOutput(child.stdout!, prefixWriter('seq', 'stdout'), sink)]);
    expect(code).toBe(0);
  });
});

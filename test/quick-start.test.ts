import { spawn } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { fencedBlocks, readPage } from './support/docs.ts';
import { killMarkedProcesses, waitForNoLeftovers } from './support/leftovers.ts';
import { BIN, BIN_COMMAND, BIN_VARIABLE, MARKER_VARIABLE } from './support/supervisor.ts';
import { useTempDirs } from './support/temp-dirs.ts';

// The README's quick start for someone who holds only the executable: its
// command, run as written from a folder that holds nothing but sidecar-init,
// with no Node on PATH, prints the log lines the README quotes, in that order.

const tempDir = useTempDirs('quick-start');

/** The README's Quick start section: the command that needs only the executable, and the log it quotes. */
function quickStart(): { readonly command: string; readonly log: readonly string[] } {
  const text = readPage('README.md');
  const section = text.slice(text.indexOf('\n## Quick start\n'), text.indexOf('\n## ', text.indexOf('\n## Quick start\n') + 1));
  const blocks = fencedBlocks(section);
  const command = blocks.find((block) => block.lang === 'sh' && block.body.startsWith('./sidecar-init '));
  const log = blocks.find((block) => block.lang === 'text');
  if (command === undefined || log === undefined) throw new Error('README.md: the quick start has no ./sidecar-init command and log');
  return { command: command.body, log: log.body.split('\n').filter((line) => line !== '') };
}

/** A log line without what differs from run to run: the time, the pids, the budget used. */
function steady(line: string): string {
  return line.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z /, '').replaceAll(/\b(pid|budgetUsedMs)=\d+/g, '$1=N');
}

/**
 * sidecar-init, alone in `dir`: the single executable itself when the tests
 * run against it (npm run test:binary), else a two-line launcher of the bundle.
 */
function placeExecutable(dir: string): void {
  const path = join(dir, 'sidecar-init');
  if (process.env[BIN_VARIABLE]) copyFileSync(BIN, path);
  else writeFileSync(path, `#!/bin/sh\nexec ${BIN_COMMAND.map((arg) => `'${arg}'`).join(' ')} "$@"\n`, { mode: 0o755 });
}

/** Runs `script` with sh in `cwd` to its end: its exit code and both streams. */
function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn('sh', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the README's quick start with only the executable", () => {
  it('runs as written from a clean folder without Node on PATH, and prints the log lines the README quotes, in order', async () => {
    const { command, log } = quickStart();
    const dir = tempDir();
    placeExecutable(dir);
    const marker = randomUUID();
    // A terminal's log is text; stderr here is a pipe, so the variable says what the terminal would.
    const env = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: dir, SIDECAR_INIT_LOG_FORMAT: 'text', [MARKER_VARIABLE]: marker };
    // Nothing it started may outlive it: what is left is killed, by PID, whatever the test found.
    onTestFinished(() => killMarkedProcesses(marker));
    const run = await runScript(command, dir, env);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')).toEqual(['migrate: schema is up to date', 'proxy: listening', 'job: done', 'exit code 3', '']);
    const printed = run.stderr.split('\n').map(steady);
    // Each quoted line is printed, after the one quoted before it.
    let from = 0;
    for (const line of log.map(steady)) {
      const at = printed.indexOf(line, from);
      expect({ line, found: at >= 0 }).toEqual({ line, found: true });
      from = at + 1;
    }
    expect(await waitForNoLeftovers(marker)).toEqual([]);
  });
});

import { execFile } from 'node:child_process';

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs podman (or another command); never rejects on a non-zero exit, which callers judge. */
export function run(
  command: string,
  args: readonly string[],
  timeoutMs = 120_000,
  env: Record<string, string> = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const options = { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' as const, env: { ...process.env, ...env } };
    execFile(command, args, options, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr: error !== null && typeof error.code !== 'number' ? `${stderr}${error.message}` : stderr });
    });
  });
}

export async function podman(args: readonly string[], timeoutMs?: number): Promise<string> {
  const result = await run('podman', args, timeoutMs);
  if (result.code !== 0) throw new Error(`podman ${args.join(' ')} failed (${result.code}): ${result.stderr.trim()}`);
  return result.stdout;
}

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { FIXTURES, NODE } from './supervisor.ts';

/** Quotes argv for a `--sidecar NAME=CMD` flag, which sidecar-init splits like a shell. */
export function shellJoin(...argv: string[]): string {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)).join(' ');
}

/** A shell fixture by file name, quoted for a flag. */
export function fixture(file: string, ...args: string[]): string {
  return shellJoin(`${FIXTURES}${file}`, ...args);
}

/**
 * A `log:` readiness probe for a shell fixture that calls `announce_start`
 * (record.sh): it passes once the fixture's traps are installed, so the
 * supervisor starts nothing after it, and the app cannot exit and tear it down,
 * before it can hear its stop signal.
 */
export function announced(name: string): string {
  return `log:^${name} ready$`;
}

/** A fixture as argv, for the app after `--`. */
export function fixtureArgv(file: string, ...args: string[]): string[] {
  return [`${FIXTURES}${file}`, ...args];
}

/** The TCP sidecar fixture: listens on `port` after `delayMs`. */
export function tcpServer(name: string, port: number, delayMs = 0): string {
  return shellJoin(NODE, `${FIXTURES}tcp-server.mjs`, name, String(port), String(delayMs));
}

/** A port that was free a moment ago (the kernel does not hand it out again at once). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Writes a YAML config into `dir` and returns its path. */
export function writeConfig(dir: string, lines: readonly string[]): string {
  const path = join(dir, 'sidecar-init.yaml');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** A YAML flow sequence for a command, every argument quoted. */
export function yamlArgv(...argv: string[]): string {
  return `[${argv.map((arg) => JSON.stringify(arg)).join(', ')}]`;
}

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const NODE = process.execPath;
/** Selects the sidecar-init under test: a path, e.g. dist/sidecar-init (the single executable). */
export const BIN_VARIABLE = 'TEST_SIDECAR_INIT_BIN';
/**
 * The sidecar-init every integration test runs: bin/sidecar-init (the bundle,
 * on this Node), or the executable $TEST_SIDECAR_INIT_BIN names, so one suite
 * checks both (`npm run test:binary`).
 */
export const BIN = resolve(process.env[BIN_VARIABLE] || fileURLToPath(new URL('../../bin/sidecar-init', import.meta.url)));
/** The bundle's script, whatever $TEST_SIDECAR_INIT_BIN says: for the tests that give Node flags (StartOptions.nodeFlags). */
const BUNDLE_SCRIPT = fileURLToPath(new URL('../../bin/sidecar-init', import.meta.url));
/** How to start BIN: the bundle's script on the Node running the tests (not whichever `node` is first on PATH); an executable as itself. */
export const BIN_COMMAND: readonly string[] = process.env[BIN_VARIABLE] ? [BIN] : [NODE, BIN];
/** Every process a test starts inherits this variable, so leftovers can be found in /proc. */
export const MARKER_VARIABLE = 'TEST_SIDECAR_INIT_RUN';

export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly event?: string;
  readonly proc?: string;
  readonly pid?: number;
  readonly exitCode?: number;
  readonly signal?: string;
  readonly [field: string]: unknown;
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface RunningSupervisor {
  readonly process: ChildProcess;
  /** Unique per run; see MARKER_VARIABLE. */
  readonly marker: string;
  readonly exited: Promise<Exit>;
  readonly logs: LogLine[];
  stderr(): string;
  stdout(): string;
  /** Resolves with the first log line matching, already seen or still to come. */
  waitForLog(match: (line: LogLine) => boolean): Promise<LogLine>;
}

export interface StartOptions {
  readonly env?: Record<string, string>;
  /** Run as real PID 1 in a new PID namespace (needs root). */
  readonly pid1?: boolean;
  /** Leave the supervisor's stdout pipe unread, as a stalled log collector would. */
  readonly stdoutUnread?: boolean;
  /** A command to run the supervisor under, e.g. setpriv to change its user or groups. */
  readonly wrapper?: readonly string[];
  /** The supervisor's working directory (default: the test's), e.g. one another user can enter. */
  readonly cwd?: string;
  /**
   * Runs the bundle on the tests' Node with these flags (say, --import of a
   * test-only hook), even when $TEST_SIDECAR_INIT_BIN names the executable, which
   * takes no Node flags (not even from NODE_OPTIONS).
   */
  readonly nodeFlags?: readonly string[];
  /** With nodeFlags: the script Node runs instead of bin/sidecar-init (say, one that loads the bundle as the executable does). */
  readonly script?: string;
}

export function startSupervisor(args: readonly string[], options: StartOptions = {}): RunningSupervisor {
  const marker = randomUUID();
  const [command = NODE, ...argv] = [
    ...(options.wrapper ?? []),
    ...(options.pid1 === true ? ['unshare', '--pid', '--fork', '--mount-proc'] : []),
    ...(options.nodeFlags === undefined ? BIN_COMMAND : [NODE, ...options.nodeFlags, options.script ?? BUNDLE_SCRIPT]),
    ...args,
  ];
  const child = spawn(command, argv, {
    env: { ...process.env, ...options.env, [MARKER_VARIABLE]: marker },
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  let partial = '';
  const logs: LogLine[] = [];
  const waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  if (options.stdoutUnread === true) {
    child.stdout?.pause();
    // What was never read is discarded once the supervisor is gone, so 'close' can come.
    child.once('exit', () => child.stdout?.destroy());
  } else {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
  }
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const text of lines) {
      const line = parseLogLine(text);
      if (line === undefined) continue;
      logs.push(line);
      for (const waiter of [...waiters]) {
        if (!waiter.match(line)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<Exit>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return {
    process: child,
    marker,
    exited,
    logs,
    stderr: () => stderr,
    stdout: () => stdout,
    waitForLog(match) {
      const seen = logs.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        void exited.then(() => reject(new Error(`supervisor exited before the expected log line; stderr:\n${stderr}`)));
      });
    },
  };
}

/** Runs the supervisor to completion. */
export async function runSupervisor(args: readonly string[], options: StartOptions = {}): Promise<RunningSupervisor & Exit> {
  const running = startSupervisor(args, options);
  const exit = await running.exited;
  return { ...running, ...exit };
}

function parseLogLine(text: string): LogLine | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    return JSON.parse(text) as LogLine;
  } catch {
    return undefined;
  }
}

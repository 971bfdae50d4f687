import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/sidecar-init', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const NODE = process.execPath;
/** Every process a test starts inherits this variable, so leftovers can be found in /proc. */
export const MARKER_VARIABLE = 'SIDECAR_INIT_TEST_RUN';

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
}

export function startSupervisor(args: readonly string[], options: StartOptions = {}): RunningSupervisor {
  const marker = randomUUID();
  const command = options.pid1 === true ? 'unshare' : NODE;
  const argv = options.pid1 === true ? ['--pid', '--fork', '--mount-proc', NODE, BIN, ...args] : [BIN, ...args];
  const child = spawn(command, argv, {
    env: { ...process.env, ...options.env, [MARKER_VARIABLE]: marker },
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

import { loadNativeProcessApi } from './native.ts';

// Interactive use (`docker run -it IMAGE bash`): when sidecar-init's stdin is
// its controlling terminal and it holds the foreground, the app is forked by
// the native part into its own process group, which becomes the terminal's
// foreground group (src/process/native/terminal.c says why Node cannot).
// Ctrl-C and Ctrl-Z then reach the app alone and a shell has job control;
// sidecars and init steps already run in sessions of their own with stdin from
// /dev/null, so they never read the terminal nor get its signals.

/** The terminal functions of the native addon (src/process/native/terminal.c). */
interface TerminalApi {
  ownsTerminal(fd: number): boolean;
  takeTerminal(fd: number): void;
  spawnForeground(path: string, argv: string[], envp: string[], cwd: string, uid: number, gid: number, fd: number): number;
}

const STDIN_FD = 0;

/** The controlling terminal, handed to the app and taken back when it exits. */
export interface ForegroundTerminal {
  /** Forks and execs the app as the terminal's foreground group; its pid. Throws an Error with the errno on failure. */
  spawn(
    path: string,
    argv: readonly string[],
    env: NodeJS.ProcessEnv,
    cwd: string,
    user: { uid?: number; gid: number } | undefined,
  ): number;
  /** Our own group is the foreground again (the app has exited). */
  reclaim(): void;
}

/**
 * The terminal when stdin is sidecar-init's controlling terminal and its group
 * is in the foreground; undefined otherwise (no terminal, a pipe, a background
 * job), and the app is spawned as usual.
 */
export function detectForegroundTerminal(): ForegroundTerminal | undefined {
  const api = loadNativeProcessApi() as unknown as Partial<TerminalApi>;
  if (typeof api.ownsTerminal !== 'function' || typeof api.spawnForeground !== 'function' || typeof api.takeTerminal !== 'function') {
    return undefined;
  }
  const terminal = api as TerminalApi;
  if (!terminal.ownsTerminal(STDIN_FD)) return undefined;
  return {
    spawn(path, argv, env, cwd, user) {
      const envp = Object.entries(env)
        .filter((entry): entry is [string, string] => entry[1] !== undefined)
        .map(([key, value]) => `${key}=${value}`);
      return terminal.spawnForeground(path, [...argv], envp, cwd, user?.uid ?? -1, user?.gid ?? -1, STDIN_FD);
    },
    reclaim: () => terminal.takeTerminal(STDIN_FD),
  };
}

import type { TerminalApi } from '../os/addon.ts';
import { loadNativeProcessApi } from '../os/native.ts';

// Interactive use (`docker run -it IMAGE bash`): when sidecar-init's stdin is
// its controlling terminal and it holds the foreground, the app is forked by
// the native part into its own process group, which becomes the terminal's
// foreground group (src/os/native/terminal.c says why Node cannot).
// Ctrl-C and Ctrl-Z then reach the app alone and a shell has job control;
// sidecars and init steps already run in sessions of their own with stdin from
// /dev/null, so they never read the terminal nor get its signals.

const STDIN_FD = 0;
/** foregroundGroup's answer when our group is the foreground but our PID namespace cannot name it. */
const UNNAMED_GROUP = 0;

/**
 * Where the app runs on the terminal: 'own', a process group of its own made
 * the foreground (and the caller's group given the terminal back at its
 * exit); 'caller', the group that had the foreground, which keeps it
 * (sidecar-init leaves it), because the PID namespace cannot name that group
 * and so could never give the terminal back (terminal.c says more).
 */
export type ForegroundGroup = 'own' | 'caller';

/** The controlling terminal, handed to the app and given back when it exits. */
export interface ForegroundTerminal {
  /**
   * Forks and execs the app on the terminal; its pid and its group. Throws an
   * Error whose code is the errno name (ENOENT, EACCES) on failure. Undefined once the terminal cannot be
   * handed again: in 'caller' mode sidecar-init has left the caller's group,
   * so a second run (a restart) could not be born in it.
   */
  spawn(
    path: string,
    argv: readonly string[],
    env: NodeJS.ProcessEnv,
    cwd: string,
    user: { uid?: number; gid: number } | undefined,
  ): { pid: number; group: ForegroundGroup } | undefined;
  /** The app has exited: the group that had the terminal before it has it again. */
  reclaim(): void;
}

/**
 * The terminal when stdin is sidecar-init's controlling terminal and its group
 * is in the foreground; undefined otherwise (no terminal, a pipe, a background
 * job), and the app is spawned as usual.
 */
export function detectForegroundTerminal(): ForegroundTerminal | undefined {
  const terminal: TerminalApi = loadNativeProcessApi();
  // The group that has the foreground now, read once: the one to give it back to.
  const original = terminal.foregroundGroup(STDIN_FD);
  if (original < 0) return undefined;
  const group: ForegroundGroup = original === UNNAMED_GROUP ? 'caller' : 'own';
  let handedOver = false;
  return {
    spawn(path, argv, env, cwd, user) {
      if (group === 'caller' && handedOver) return undefined;
      const envp = Object.entries(env)
        .filter((entry): entry is [string, string] => entry[1] !== undefined)
        .map(([key, value]) => `${key}=${value}`);
      // Once the app has the foreground sidecar-init is in the background of the terminal, where its
      // own log lines would stop it under `stty tostop`: from here on they go through.
      terminal.ignoreTerminalStops();
      const pid = terminal.spawnForeground({
        path,
        argv,
        envp,
        cwd,
        uid: user?.uid ?? -1,
        gid: user?.gid ?? -1,
        fd: STDIN_FD,
        ownGroup: group === 'own',
      });
      handedOver = true;
      return { pid, group };
    },
    // In 'caller' mode the foreground never moved; an app that moved it itself (a shell with job control) gives it back itself.
    reclaim: () => {
      if (group === 'own') terminal.giveTerminal(STDIN_FD, original);
    },
  };
}

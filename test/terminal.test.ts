import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { announced, fixture, shellJoin } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { findMarkedProcesses, killMarkedProcesses, waitForNoLeftovers } from './support/leftovers.ts';
import { processState } from './support/proc-state.ts';
import { BIN_COMMAND, MARKER_VARIABLE } from './support/supervisor.ts';

// Interactive use, as `docker run -it IMAGE bash` gives it: sidecar-init on a
// real pseudo-terminal (util-linux `script` allocates it and makes it the
// controlling terminal), bash as the app, keys typed into the terminal.

const { events: createEvents } = useHarness();
const PROMPT = 'PROMPT> ';
const WAIT_MS = 20_000;
const POLL_MS = 10;

interface Terminal {
  /** Everything the terminal showed so far. */
  screen(): string;
  /** Types into the terminal. */
  type(keys: string): void;
  /** Resolves once the screen, after `from`, matches; returns the index just past the match. */
  waitFor(pattern: RegExp, from: number): Promise<number>;
  readonly exited: Promise<number | null>;
  readonly marker: string;
}

/**
 * Resolves once a process of the run with this cmdline (NUL-separated) leads
 * the terminal's foreground group and runs: only then do keys typed reach it. Polls
 * /proc, bounded, as there is no event for it.
 */
async function waitForForeground(marker: string, cmdline: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    for (const pid of findMarkedProcesses(marker)) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'latin1') !== `${cmdline}\x00`) continue;
        const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
        const [state, , pgrp, , , tpgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // Stopped (T) until its SIGCONT: keys typed now would be held for it, but say so plainly.
        if (pgrp === tpgid && state !== 'T') return;
      } catch {
        // Gone while we looked.
      }
    }
    if (Date.now() > deadline) throw new Error(`no process ${JSON.stringify(cmdline)} came to the foreground`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The marked processes whose argv starts with these words, as /proc shows them now. */
function markedWithArgv(marker: string, ...prefix: string[]): number[] {
  return findMarkedProcesses(marker).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').startsWith(`${prefix.join('\x00')}\x00`);
    } catch {
      return false;
    }
  });
}

/** Resolves with the pid of the one marked process with this argv prefix once `ready` holds for it; polls /proc, bounded. */
async function waitForMarked(marker: string, prefix: readonly string[], ready: (pid: number) => boolean): Promise<number> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const found = markedWithArgv(marker, ...prefix).find(ready);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no process ${JSON.stringify(prefix)} came to the state waited for`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function startOnTerminal(argv: readonly string[], env: Record<string, string>): Terminal {
  const marker = randomUUID();
  // -e: script exits with the command's code; -f: every byte is passed on at once.
  const child = spawn('script', ['-qefc', shellJoin(...argv), '/dev/null'], {
    env: { ...process.env, ...env, [MARKER_VARIABLE]: marker, TERM: 'dumb' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let screen = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString('utf8');
    for (const waiter of waiters) waiter();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    marker,
    screen: () => screen,
    type: (keys) => child.stdin.write(keys),
    exited,
    waitFor(pattern, from) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(screen.slice(from));
          if (match === null) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(from + match.index + match[0].length);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          child.kill('SIGKILL');
          killMarkedProcesses(marker);
          reject(new Error(`the terminal never showed ${pattern}; it shows:\n${screen}`));
        }, WAIT_MS);
        waiters.add(check);
        check();
      });
    },
  };
}

describe('on a terminal', () => {
  for (const pid1 of [false, true]) {
    it(`gives the app the foreground: job control, Ctrl-C to the foreground job only, the exit code passed on${pid1 ? ' (as PID 1)' : ''}`, async () => {
      const events = createEvents();
      const rcfile = join(events.dir, 'bashrc');
      writeFileSync(rcfile, `PS1='${PROMPT}'\n`);
      const argv = [
        ...(pid1 ? ['unshare', '--pid', '--fork', '--mount-proc'] : []),
        ...BIN_COMMAND,
        '--log-level',
        'warn',
        '--sidecar',
        `side=${fixture('record-terminal.sh', 'side')}`,
        '--ready',
        `side=${announced('side')}`,
        '--',
        'bash',
        '--noprofile',
        '--rcfile',
        rcfile,
        '-i',
      ];
      const terminal = startOnTerminal(argv, { EVENTS: events.file });
      let at = await terminal.waitFor(new RegExp(PROMPT), 0);
      await events.waitFor('side start');

      // bash has job control only if it leads its own group and that group is the terminal's
      // foreground: read with builtins only, as any command would run as a foreground job of its own.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, typed into bash
      terminal.type('read -r s < /proc/$$/stat; s=${s##*) }; set -- $s; echo "pid=$$ pgid=$3 tpgid=$6"\n');
      const ids = /pid=(\d+) pgid=(\d+) tpgid=(\d+)/;
      at = await terminal.waitFor(ids, at);
      const [, pid, pgid, tpgid] = ids.exec(terminal.screen()) ?? [];
      expect({ pgid, tpgid }).toEqual({ pgid: pid, tpgid: pid });

      terminal.type('sleep 100 &\n');
      at = await terminal.waitFor(/\[1\] \d+/, at);
      terminal.type('jobs\n');
      at = await terminal.waitFor(/\[1\]\+\s+Running\s+sleep 100 &/, at);
      terminal.type('fg\n');
      await waitForForeground(terminal.marker, 'sleep\x00100');
      // Ctrl-C: the terminal sends SIGINT to its foreground group, the job alone.
      terminal.type('\x03');
      at = await terminal.waitFor(new RegExp(PROMPT), at);
      terminal.type('echo "status=$?"\n');
      at = await terminal.waitFor(/status=(\d+)/, at);
      expect(/status=(\d+)/.exec(terminal.screen().slice(at - 20))?.[1]).toBe('130');
      const beforeJobs = at;
      terminal.type('jobs; echo "jobs-done"\n');
      at = await terminal.waitFor(/\njobs-done/, at);
      // The interrupted job is gone: `jobs` lists nothing.
      expect(terminal.screen().slice(beforeJobs, at)).not.toMatch(/Running|Stopped/);

      // Ctrl-Z stops the foreground job; the shell gets the terminal back.
      terminal.type('sleep 101\n');
      await waitForForeground(terminal.marker, 'sleep\x00101');
      terminal.type('\x1a');
      at = await terminal.waitFor(/\[1\]\+\s+Stopped\s+sleep 101/, at);
      // fg resumes the stopped job in the foreground, where Ctrl-C ends it (a job still stopped would keep bash from exiting).
      terminal.type('fg\n');
      await waitForForeground(terminal.marker, 'sleep\x00101');
      terminal.type('\x03');
      at = await terminal.waitFor(new RegExp(PROMPT), at);
      terminal.type('jobs; echo "no-jobs"\n');
      at = await terminal.waitFor(/\nno-jobs/, at);

      terminal.type('exit 7\n');
      expect(await terminal.exited).toBe(7);
      const sidecar = events.sequence().filter((entry) => entry.startsWith('side '));
      // The sidecar never read the terminal and heard none of its signals; it was stopped at teardown.
      expect(sidecar).toEqual(['side stdin-not-terminal', 'side start', 'side stop']);
      expect(await waitForNoLeftovers(terminal.marker)).toEqual([]);
    });
  }

  for (const pid1 of [false, true]) {
    it(`ends an app that stopped itself (kill -STOP $$) at once on SIGTERM, exiting 143${pid1 ? ' (as PID 1)' : ''}`, async () => {
      const app = 'echo "stopping-myself"; kill -STOP $$; echo "continued"';
      const argv = [
        ...(pid1 ? ['unshare', '--pid', '--fork', '--mount-proc'] : []),
        ...BIN_COMMAND,
        '--log-level',
        'warn',
        '--grace',
        '20s',
        '--',
        '/bin/sh',
        '-c',
        app,
      ];
      const terminal = startOnTerminal(argv, {});
      await terminal.waitFor(/stopping-myself/, 0);
      await waitForMarked(terminal.marker, ['/bin/sh', '-c', app], (pid) => processState(pid) === 'T');
      const supervisor = await waitForMarked(terminal.marker, BIN_COMMAND, () => true);
      const signalled = Date.now();
      process.kill(supervisor, 'SIGTERM');
      expect(await terminal.exited).toBe(143);
      // A liveness bound, far under the grace: the SIGCONT after the SIGTERM lets the pending SIGTERM end it.
      expect(Date.now() - signalled).toBeLessThan(10_000);
      expect(terminal.screen()).not.toContain('continued');
      expect(await waitForNoLeftovers(terminal.marker)).toEqual([]);
    });
  }

  for (const pid1 of [false, true]) {
    it(`gives the terminal back to the caller's group at exit, so a shell without job control is in the foreground again${pid1 ? ' (as PID 1, not a session leader)' : ''}`, async () => {
      const supervisor = [
        ...(pid1 ? ['unshare', '--pid', '--fork', '--mount-proc'] : []),
        ...BIN_COMMAND,
        '--log-level',
        'warn',
        '--',
        '/bin/sh',
        '-c',
        'echo "app-ran"',
      ];
      // A script (no job control): sidecar-init runs in the script's own process group, then the
      // script reads its group and the terminal's foreground group, with builtins only.
      const caller = [
        shellJoin(...supervisor),
        'echo "supervisor-exit=$?"',
        'read -r s < /proc/$$/stat',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion
        's=${s##*) }',
        'set -- $s',
        'echo "pgid=$3 tpgid=$6"',
      ].join('; ');
      const terminal = startOnTerminal(['/bin/sh', '-c', caller], {});
      const ids = /pgid=(\d+) tpgid=(-?\d+)/;
      await terminal.waitFor(ids, 0);
      expect(await terminal.exited).toBe(0);
      expect(terminal.screen()).toContain('app-ran');
      expect(terminal.screen()).toContain('supervisor-exit=0');
      const [, pgid, tpgid] = ids.exec(terminal.screen()) ?? [];
      expect(tpgid).toBe(pgid);
      expect(await waitForNoLeftovers(terminal.marker)).toEqual([]);
    });
  }
});

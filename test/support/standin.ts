import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { chmodSync, cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { isAlive } from '../../src/os/proc-table.ts';
import { waitForStopped, waitForZombie } from './proc-state.ts';

/** The stand-in proxies (test/fixtures/standin/), one symlink per real proxy name. */
export const STANDIN_DIR = fileURLToPath(new URL('../fixtures/standin/', import.meta.url));

export type StandinName =
  | 'pilot-agent'
  | 'envoy'
  | 'linkerd2-proxy'
  | 'cloud-sql-proxy'
  | 'alloydb-auth-proxy'
  | 'daprd'
  | 'consul-dataplane'
  | 'otelcol';

export interface StandinEvent {
  readonly event: string;
  readonly pid: number;
  readonly uid: number;
  readonly t: number;
  readonly ports?: Record<string, number>;
  readonly child?: number | null;
  readonly [field: string]: unknown;
}

export interface Standin {
  readonly pid: number;
  readonly uid: number;
  /** The real port (e.g. "15020") → the port the OS gave it. */
  readonly ports: Readonly<Record<string, number>>;
  /** Its own child's PID (pilot-agent runs envoy), if any. */
  readonly childPid: number | undefined;
  readonly events: StandinEvent[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  url(realPort: number, path: string): string;
}

export interface StandinOptions {
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
  /** Runs as this UID (we are root); default a random one, which also keeps matchers of parallel tests apart. */
  readonly uid?: number;
}

const started: { pid: number; childPid: number | undefined }[] = [];

let runnableDir: string | undefined;
/**
 * A world-readable copy of STANDIN_DIR: stand-ins run as other UIDs, which
 * cannot reach the checkout when it sits in a private folder such as /root.
 */
function runnableStandinDir(): string {
  if (runnableDir !== undefined) return runnableDir;
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-standin-'));
  chmodSync(dir, 0o755);
  cpSync(STANDIN_DIR, dir, { recursive: true, verbatimSymlinks: true });
  runnableDir = `${dir}/`;
  return runnableDir;
}

/** A UID no other test uses at the same time: matchers that include it see only this test's processes. */
export function uniqueUid(): number {
  return randomInt(20_000, 60_000);
}

/**
 * Starts a stand-in on ephemeral ports and resolves once it listens (its
 * signal handlers are installed before that line), so a test acts only after it.
 */
export function startStandin(name: StandinName, options: StandinOptions = {}): Promise<Standin> {
  const uid = options.uid ?? uniqueUid();
  const child: ChildProcess = spawn(`${runnableStandinDir()}${name}`, ['--standin-ephemeral-ports', ...(options.args ?? [])], {
    uid,
    gid: uid,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const events: StandinEvent[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // close, not exit: every event line it printed has been read by then.
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    let partial = '';
    child.once('error', reject);
    void exited.then(({ code, signal }) => reject(new Error(`stand-in ${name} exited before listening (${code ?? signal})`)));
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      partial += chunk;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const event = JSON.parse(line) as StandinEvent;
        events.push(event);
        if (event.event !== 'listening') continue;
        const pid = child.pid ?? 0;
        const childPid = event.child ?? undefined;
        started.push({ pid, childPid });
        const ports = event.ports ?? {};
        resolve({
          pid,
          uid,
          ports,
          childPid,
          events,
          exited,
          url: (realPort, path) => `http://127.0.0.1:${ports[String(realPort)]}${path}`,
        });
      }
    });
  });
}

/** afterEach: SIGKILL every stand-in (and its child) still alive, by PID; returns the survivors it found. */
export function killStandins(): number[] {
  const survivors: number[] = [];
  for (const { pid, childPid } of started.splice(0)) {
    for (const target of [childPid, pid]) {
      if (target === undefined || !isAlive(target)) continue;
      survivors.push(target);
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
  return survivors;
}

/**
 * A test file of stand-ins: a `sleep` plays sidecar-init (the stand-ins are
 * this test's children, and sidecar-init's descendants are never matched) and
 * is killed after the file; every stand-in is killed after each test.
 */
export function useStandins(): { readonly selfPid: () => number } {
  let self: ChildProcess | undefined;
  beforeAll(() => {
    self = spawn('sleep', ['300'], { stdio: 'ignore' });
  });
  afterAll(() => {
    self?.kill('SIGKILL');
  });
  afterEach(() => {
    killStandins();
  });
  return { selfPid: () => self?.pid ?? 0 };
}

/**
 * An envoy stand-in left a zombie: pilot-agent runs it as its child, is
 * stopped (SIGSTOP) so it cannot reap, and envoy is then killed. Its /proc
 * entry stays, with its comm and UID, as a dead process of another container
 * does until its parent reaps it; killStandins ends the parent after the test.
 */
export async function startZombieStandin(): Promise<{ readonly pid: number; readonly uid: number; readonly parentPid: number }> {
  const mesh = await startStandin('pilot-agent');
  const pid = mesh.childPid;
  if (pid === undefined) throw new Error('the pilot-agent stand-in started no envoy');
  process.kill(mesh.pid, 'SIGSTOP');
  await waitForStopped(mesh.pid);
  process.kill(pid, 'SIGKILL');
  await waitForZombie(pid);
  return { pid, uid: mesh.uid, parentPid: mesh.pid };
}

import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { startStandin, startZombieStandin, uniqueUid, useStandins } from '../../test/support/standin.ts';
import { isAlive } from '../os/proc-table.ts';
import { processMatch } from '../../test/support/matchers.ts';
import { foundIn, searchProcesses } from './find-processes.ts';
import { type StopLogger, stopExternal } from './stop-external.ts';

// Real stand-in proxies (test/fixtures/standin/) serving the real endpoints,
// each as its own UID; stopped as sidecar-init stops an external at teardown.

const STOP_MODULE = fileURLToPath(new URL('./stop-external.ts', import.meta.url));

interface LogRecord {
  readonly level: 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

function recordingLogger(): StopLogger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  const record = (level: LogRecord['level']) => (fields: object, message: string) =>
    records.push({ level, fields: fields as Record<string, unknown>, message });
  return { records, info: record('info'), warn: record('warn'), error: record('error') };
}

const { selfPid } = useStandins();
/** Long enough that a search never takes half of it, however loaded the machine. */
const ZOMBIE_BUDGET_MS = 6_000;

describe('stopExternal', () => {
  test('posts to the quit endpoint and waits until the proxy and its child are gone', async () => {
    const proxy = await startStandin('pilot-agent');
    const logger = recordingLogger();
    const outcome = await stopExternal(
      {
        name: 'mesh',
        match: processMatch({ comm: 'pilot-agent', uid: proxy.uid }),
        http: { url: proxy.url(15020, '/quitquitquit'), method: 'POST' },
      },
      { budgetMs: 10_000, logger, selfPid: selfPid() },
    );
    expect(outcome).toEqual({ kind: 'stopped', killed: 0 });
    expect(await proxy.exited).toEqual({ code: 0, signal: null });
    expect(proxy.events.map((event) => event.event)).toContain('quit');
    expect(isAlive(proxy.childPid ?? 0)).toBe(false);
    expect(logger.records.map((record) => record.fields.event)).toEqual(['external-stop-request', 'external-stopped']);
  });

  test('a zombie match is already gone: reported at once, nothing signalled', async () => {
    const zombie = await startZombieStandin();
    const logger = recordingLogger();
    const startedAt = performance.now();
    const outcome = await stopExternal(
      { name: 'envoy', match: processMatch({ comm: 'envoy', uid: zombie.uid }) },
      { budgetMs: ZOMBIE_BUDGET_MS, logger, selfPid: selfPid() },
    );
    expect(outcome).toEqual({ kind: 'absent' });
    expect(logger.records).toEqual([]);
    // Generous: one search of /proc, against a budget a zombie counted as running would use up.
    expect(performance.now() - startedAt).toBeLessThan(ZOMBIE_BUDGET_MS / 2);
  });

  test('signals by comm through a pidfd when there is no quit endpoint', async () => {
    const proxy = await startStandin('envoy');
    const outcome = await stopExternal(
      { name: 'envoy', match: processMatch({ comm: 'envoy', uid: proxy.uid }) },
      { budgetMs: 10_000, logger: recordingLogger(), selfPid: selfPid() },
    );
    expect(outcome).toEqual({ kind: 'stopped', killed: 0 });
    await proxy.exited;
    expect(proxy.events).toContainEqual(expect.objectContaining({ event: 'signal', signal: 'SIGTERM' }));
  });

  test('a quit endpoint that answers 404 falls back to SIGTERM and logs how to switch it on', async () => {
    const proxy = await startStandin('linkerd2-proxy');
    const logger = recordingLogger();
    const outcome = await stopExternal(
      {
        name: 'linkerd',
        match: processMatch({ cmdline: 'linkerd2-proxy', uid: proxy.uid }),
        http: { url: proxy.url(4191, '/shutdown'), method: 'POST' },
        notFoundHint: 'annotate the pod config.linkerd.io/proxy-admin-shutdown: enabled',
      },
      { budgetMs: 10_000, logger, selfPid: selfPid() },
    );
    expect(outcome).toEqual({ kind: 'stopped', killed: 0 });
    await proxy.exited;
    expect(proxy.events).toContainEqual(expect.objectContaining({ event: 'signal', signal: 'SIGTERM' }));
    expect(logger.records).toContainEqual(
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/HTTP 404; falling back to a signal; annotate the pod/) }),
    );
  });

  test('a proxy that ignores SIGTERM is killed when the budget runs out', async () => {
    const proxy = await startStandin('envoy', { args: ['--standin-ignore-term'] });
    const startedAt = Date.now();
    const outcome = await stopExternal(
      { name: 'envoy', match: processMatch({ comm: 'envoy', uid: proxy.uid }) },
      { budgetMs: 1_000, logger: recordingLogger(), selfPid: selfPid() },
    );
    expect(outcome).toEqual({ kind: 'stopped', killed: 1 });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_000);
    expect(await proxy.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(proxy.events).toContainEqual(expect.objectContaining({ event: 'signal', signal: 'SIGTERM', ignored: true }));
  });

  test('a second SIGTERM (abort) skips the rest of the budget', async () => {
    const proxy = await startStandin('envoy', { args: ['--standin-ignore-term'] });
    const abort = new AbortController();
    const stopping = stopExternal(
      { name: 'envoy', match: processMatch({ comm: 'envoy', uid: proxy.uid }) },
      { budgetMs: 60_000, logger: recordingLogger(), selfPid: selfPid(), abort: abort.signal },
    );
    // Act once the proxy has seen (and ignored) the SIGTERM.
    await expect.poll(() => proxy.events.some((event) => event.event === 'signal')).toBe(true);
    abort.abort();
    expect(await stopping).toEqual({ kind: 'stopped', killed: 1 });
  });

  test('nothing to stop: absent, whether the endpoint refuses or there is none', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
      });
    });
    const match = processMatch({ comm: 'pilot-agent', uid: uniqueUid() });
    const logger = recordingLogger();
    expect(
      await stopExternal(
        { name: 'mesh', match, http: { url: `http://127.0.0.1:${closedPort}/quitquitquit`, method: 'POST' } },
        { budgetMs: 5_000, logger, selfPid: selfPid() },
      ),
    ).toEqual({
      kind: 'absent',
    });
    expect(await stopExternal({ name: 'mesh', match }, { budgetMs: 5_000, logger, selfPid: selfPid() })).toEqual({ kind: 'absent' });
  });

  test('another UID without CAP_KILL: one clear error naming the process, its UID and the fix; no hang, no throw', async () => {
    const proxy = await startStandin('envoy');
    // sidecar-init as a non-root app container runs it: another UID, no capabilities.
    const script = `import { stopExternal } from ${JSON.stringify(STOP_MODULE)};
const lines = [];
const log = (level) => (fields, message) => lines.push({ level, ...fields, message });
const outcome = await stopExternal({ name: 'envoy', match: { comm: 'envoy', uid: ${proxy.uid}, maxMatches: 1 } },
  { budgetMs: 1000, logger: { info: log('info'), warn: log('warn'), error: log('error') } });
console.log(JSON.stringify({ outcome, lines }));`;
    const startedAt = Date.now();
    // setpriv as UID 1000: CAP_DAC_READ_SEARCH only lets it reach node wherever
    // the checkout is (a private /root, say); it grants no CAP_KILL.
    const as1000 = ['--reuid=1000', '--regid=1000', '--clear-groups', '--inh-caps=+dac_read_search', '--ambient-caps=+dac_read_search'];
    const result = spawnSync('setpriv', [...as1000, process.execPath, '--input-type=module', '-e', script], {
      cwd: '/',
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const { outcome, lines } = JSON.parse(result.stdout) as { outcome: { kind: string }; lines: Record<string, unknown>[] };
    expect(outcome).toMatchObject({ kind: 'left-running', processes: [{ pid: proxy.pid, uid: proxy.uid }] });
    const denied = lines.filter((line) => line.event === 'external-stop-denied');
    expect(denied).toHaveLength(1);
    expect(denied[0]?.message).toBe(
      `cannot send SIGTERM to external envoy (comm envoy, uid ${proxy.uid}): envoy (PID ${proxy.pid}, UID ${proxy.uid}) belongs to another user and sidecar-init runs as UID 1000 without CAP_KILL (EPERM); fix: give it an HTTP stop endpoint (a preset's, or --quit envoy=URL / stop.http), run sidecar-init as UID ${proxy.uid}, or grant it CAP_KILL`,
    );
    expect(Date.now() - startedAt).toBeLessThan(15_000);
    // The proxy was never touched.
    expect(
      foundIn(await searchProcesses(processMatch({ comm: 'envoy', uid: proxy.uid }), { selfPid: selfPid() })).map((found) => found.pid),
    ).toEqual([proxy.pid]);
    expect(proxy.events.map((event) => event.event)).not.toContain('signal');
  });
});

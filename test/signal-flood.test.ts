import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORWARD_WINDOW_MS } from '../src/process/signal-forwarder.ts';
import { useHarness } from './support/harness.ts';
import { supervisorPid } from './support/namespaces.ts';
import { cpuMs } from './support/proc-state.ts';
import { startSupervisor } from './support/supervisor.ts';
import { useTempDirs } from './support/temp-dirs.ts';

// A process with sidecar-init's uid can signal PID 1 as fast as it likes: a
// sidecar, the app's children, `kubectl exec`, a same-uid container of a
// shared-PID pod. Every signal PID 1 handles goes through the addon's handler,
// which hands what has no route to the loop once per wake (SIGCHLD) or once
// per window (the rest), so a flood can neither starve the loop's timers
// (the grace, a readiness deadline) nor lose a SIGCHLD. Each case floods the
// supervisor as PID 1 from inside its namespace, for longer than the bound
// the run must keep.

const tempDir = useTempDirs('flood');
const { track, expectNothingLeft } = useHarness();

/** How long each flooder sends: far longer than any bound below, so only a supervisor that keeps its timers meets them. */
const FLOOD_S = 30;
/** A liveness bound on top of the grace or deadline under test: generous for a loaded 2-core machine, far below FLOOD_S. */
const SLACK_MS = 8000;
/** Signals with no route while the app is not running: each kind its own delivery (the kernel merges only a pending signal with itself). */
const MANY = [
  'SIGHUP',
  'SIGUSR1',
  'SIGUSR2',
  'SIGWINCH',
  'SIGALRM',
  'SIGURG',
  'SIGVTALRM',
  'SIGXCPU',
  'SIGXFSZ',
  'SIGIO',
  'SIGPWR',
  'SIGQUIT',
];

const FLOODER = `
import os, signal, sys, time
if sys.argv[3] == 'ignore-term': signal.signal(signal.SIGTERM, signal.SIG_IGN)
kinds = [getattr(signal, name) for name in sys.argv[2].split(',')]
end = time.monotonic() + float(sys.argv[1])
first, sent = True, 0
while time.monotonic() < end:
    for kind in kinds:
        os.kill(1, kind)
    sent += 1
    if first:
        with open(os.environ['READY'], 'w') as f: f.write('ready')
        first = False
if 'SENT' in os.environ:
    with open(os.environ['SENT'], 'w') as f: f.write(str(sent))
`;

/**
 * A flooder's command: writes `ready` to $READY once its first signals are
 * sent, then sends each of `signals` to PID 1 in turn for `seconds`;
 * ignores SIGTERM when asked, as a leftover that must be killed would.
 */
function flooder(seconds: number, signals: readonly string[], ignoreTerm: boolean): string {
  const file = join(tempDir(), 'flood.py');
  writeFileSync(file, FLOODER);
  return `python3 ${file} ${seconds} ${signals.join(',')} ${ignoreTerm ? 'ignore-term' : 'keep-term'}`;
}

/** A shell command that waits until the flooder said it floods (a file it wrote), then runs `then`. */
const afterFlood = (ready: string, then: string) => `while [ ! -s ${ready} ]; do sleep 0.01; done; ${then}`;

describe('PID 1 under a same-uid flood of signals', () => {
  it('exits within --grace when the app is done and a leftover that ignores SIGTERM floods it with SIGHUP', async () => {
    const ready = join(tempDir(), 'ready');
    const flood = flooder(FLOOD_S, MANY, true);
    const run = track(
      startSupervisor(
        [
          '--grace',
          '2s',
          '--',
          'sh',
          '-c',
          `trap '' ${MANY.map((name) => name.slice(3)).join(' ')}; ${flood} & ${flood} & ${afterFlood(ready, 'exit 0')}`,
        ],
        {
          pid1: true,
          env: { READY: ready },
        },
      ),
    );
    await run.waitForLog((line) => line.event === 'exited' && line.proc === 'app');
    const started = performance.now();
    const exit = await run.exited;
    const tookMs = performance.now() - started;
    expect(exit.code).toBe(0);
    expect(tookMs).toBeLessThan(2000 + SLACK_MS);
    await expectNothingLeft(run);
  });

  it('fires a readiness deadline while the sidecar floods it', async () => {
    const ready = join(tempDir(), 'ready');
    const flood = flooder(FLOOD_S, MANY, false);
    const run = track(
      startSupervisor(
        [
          '--sidecar',
          // Two flooders, one per core of a 2-core machine.
          `flood=sh -c "${flood} & ${flood} & wait"`,
          '--ready',
          `flood=file:${join(tempDir(), 'never')},deadline=2s`,
          '--',
          'true',
        ],
        { pid1: true, env: { READY: ready } },
      ),
    );
    await run.waitForLog((line) => line.event === 'spawned' && line.proc === 'flood');
    const started = performance.now();
    const exit = await run.exited;
    expect(performance.now() - started).toBeLessThan(2000 + SLACK_MS);
    expect(exit.code).not.toBe(0);
    expect(run.logs.some((line) => /deadline/.test(String(line.msg)))).toBe(true);
    await expectNothingLeft(run);
  });

  const beforeTheApp = (never: string) => ['--ready', `flood=file:${never},deadline=5m`, '--', 'true'];
  const rewrittenToNone = () => ['--rewrite', 'SIGHUP:none', '--', 'sleep', '600'];
  for (const [when, rest, kinds] of [
    ['before the app starts', beforeTheApp, MANY],
    ['with the app running and SIGHUP rewritten to none', rewrittenToNone, ['SIGHUP']],
  ] as const) {
    it(`reaps and reports a sidecar that flooded it and exited, ${when}`, async () => {
      const ready = join(tempDir(), 'ready');
      const run = track(
        startSupervisor(['--sidecar', `flood=${flooder(3, kinds, false)}`, ...rest(join(tempDir(), 'never'))], {
          pid1: true,
          env: { READY: ready },
        }),
      );
      // The sidecar's exit is reaped and told: the one thing a lost SIGCHLD never gives.
      const exited = await run.waitForLog((line) => line.event === 'exited' && line.proc === 'flood');
      expect(exited.exitCode).toBe(0);
      process.kill(supervisorPid(run), 'SIGTERM');
      await run.exited;
      await expectNothingLeft(run);
    });
  }

  it("spends a small share of one core on two processes flooding it, and none of it on Node's other threads", async () => {
    const ready = join(tempDir(), 'ready');
    const flood = flooder(3, MANY, false);
    const run = track(
      startSupervisor(['--sidecar', `flood=sh -c "${flood} & ${flood} & wait"`, ...beforeTheApp(join(tempDir(), 'never'))], {
        pid1: true,
        env: { READY: ready },
      }),
    );
    await expect.poll(() => readFileSync(ready, { encoding: 'utf8', flag: 'a+' })).toBe('ready');
    const pid = supervisorPid(run);
    const threads = () => readdirSync(`/proc/${pid}/task`).map(Number);
    const spent = () => new Map(threads().map((tid) => [tid, cpuMs(pid, tid)]));
    const before = spent();
    const started = performance.now();
    await run.waitForLog((line) => line.event === 'exited' && line.proc === 'flood');
    const floodMs = performance.now() - started;
    const after = spent();
    process.kill(pid, 'SIGTERM');
    await run.exited;
    const used = (tid: number) => (after.get(tid) ?? 0) - (before.get(tid) ?? 0);
    const others = [...after.keys()].filter((tid) => tid !== pid).reduce((sum, tid) => sum + used(tid), 0);
    // Each of Node's other threads takes a handled signal at most once, then blocks them all: the flood is the loop's alone,
    // and the loop's thread holds a flooded signal blocked between releases. Before, every thread was in handlers all along.
    expect(others).toBeLessThan(floodMs * 0.1);
    expect(used(pid)).toBeLessThan(floodMs * 0.4);
    await expectNothingLeft(run);
  });

  it('tells signals with no route at most once per signal per window, with the deliveries each line stands for, and blames no log reader', async () => {
    const ready = join(tempDir(), 'ready');
    const sentFile = join(tempDir(), 'sent');
    const kinds = MANY;
    const run = track(
      startSupervisor(
        ['--sidecar', `flood=${flooder(3, kinds, false)}`, '--ready', `flood=file:${join(tempDir(), 'never')},deadline=5m`, '--', 'true'],
        { pid1: true, env: { READY: ready, SENT: sentFile } },
      ),
    );
    const exited = await run.waitForLog((line) => line.event === 'exited' && line.proc === 'flood');
    const floodMs = 3000;
    process.kill(supervisorPid(run), 'SIGTERM');
    await run.exited;
    const received = run.logs.filter((line) => line.event === 'signal' && kinds.includes(String(line.signal)));
    expect(exited.exitCode).toBe(0);
    expect(received.length).toBeGreaterThan(0);
    // At most one line per signal per window (and the first at once): a flood of thousands is a few dozen lines.
    expect(received.length).toBeLessThanOrEqual(kinds.length * (Math.ceil((floodMs + SLACK_MS) / FORWARD_WINDOW_MS) + 1));
    expect(run.logs.some((line) => /log reader/.test(String(line.msg)))).toBe(false);
    // Each kind was sent once per round; the kernel merges a pending signal with the next, so each kind's counts add up to at most that.
    const sent = Number(readFileSync(sentFile, 'utf8'));
    for (const kind of kinds) {
      const told = received
        .filter((line) => line.signal === kind)
        .reduce((sum, line) => sum + ((line.count as number | undefined) ?? 1), 0);
      expect(told).toBeLessThanOrEqual(sent);
    }
    expect(received.some((line) => (line.count as number) > 1)).toBe(true);
    expect(readFileSync(ready, 'utf8')).toBe('ready');
    await expectNothingLeft(run);
  });
});

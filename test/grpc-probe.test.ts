import { describe, expect, it } from 'vitest';
import { fixtureArgv, freePort, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { FIXTURES, NODE, runSupervisor, startSupervisor } from './support/supervisor.ts';

// The grpc probe against a real gRPC server with the standard health service
// (fixtures/grpc-health-server.mjs), run by sidecar-init as a sidecar.

const { track, events: createEvents, expectNothingLeft } = useHarness();

const grpcServer = (name: string, port: number, initial: string, service = '') => [
  NODE,
  `${FIXTURES}grpc-health-server.mjs`,
  name,
  String(port),
  initial,
  service,
];

/** A config: sidecar `api` (the health server, starting at `initial`) with `probes` (its probe lines), and an app. */
function apiConfig(dir: string, port: number, initial: string, probes: readonly string[], service = ''): string {
  return writeConfig(dir, [
    'processes:',
    '  - name: api',
    '    role: sidecar',
    `    command: ${yamlArgv(...grpcServer('api', port, initial, service))}`,
    ...probes.map((line) => `    ${line}`),
    '  - name: app',
    '    role: app',
    `    command: ${yamlArgv(...fixtureArgv('serve.sh', 'app'))}`,
  ]);
}

describe('grpc readiness', () => {
  it('holds the app back while the server answers NOT_SERVING, and starts it once it answers SERVING', async () => {
    const events = createEvents();
    const port = await freePort();
    const config = apiConfig(
      events.dir,
      port,
      'NOT_SERVING',
      [`readiness: { probe: { grpc: { host: 127.0.0.1, port: ${port}, service: my.pkg.Api } } }`],
      'my.pkg.Api',
    );
    const run = track(startSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    await events.waitFor('api answered-NOT_SERVING');
    const api = events.read().find((entry) => entry.name === 'api' && entry.event === 'start')!;
    process.kill(api.pid, 'SIGUSR1'); // turns SERVING
    await events.waitFor('app start');
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(events.sequence()).toEqual([
      'api start',
      'api listening',
      'api answered-NOT_SERVING',
      'api serving',
      'api answered-SERVING',
      'app start',
      'app stop',
      'api stop',
    ]);
    await expectNothingLeft(run);
  });

  it('fails startup at its readiness deadline when the server accepts the call and never answers (each attempt timed out)', async () => {
    const events = createEvents();
    const port = await freePort();
    const config = apiConfig(events.dir, port, 'hang', [
      'restart: never',
      `readiness: { probe: "grpc://127.0.0.1:${port}", timeout: 300ms, deadline: 5s }`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(1);
    const teardown = run.logs.find((line) => line.event === 'teardown');
    expect(teardown).toMatchObject({ msg: 'sidecar api failed to start: not ready within its 5000ms deadline; the app will not start' });
    // Each attempt timed out: that is what its probe last said. (The deadline leaves a loaded
    // machine time to start the server, so the last failure is not a refused connection.)
    expect(teardown?.lastProbeFailure).toBe('timed out after 300ms');
    expect(events.sequence()).not.toContain('app start');
    await expectNothingLeft(run);
  });
});

describe('a startup that fails on a grpc probe', () => {
  it('names the status the server last answered', async () => {
    const events = createEvents();
    const port = await freePort();
    const config = apiConfig(events.dir, port, 'NOT_SERVING', [`readiness: { probe: "grpc://127.0.0.1:${port}", deadline: 5s }`]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(1);
    expect(run.logs.find((line) => line.event === 'teardown')?.lastProbeFailure).toBe(`grpc://127.0.0.1:${port}: NOT_SERVING`);
    await expectNothingLeft(run);
  });
});

describe('grpc liveness', () => {
  it('restarts a sidecar whose server turns NOT_SERVING; the new one passes readiness again', async () => {
    const events = createEvents();
    const port = await freePort();
    const config = apiConfig(events.dir, port, 'SERVING', [
      `readiness: { probe: "grpc://127.0.0.1:${port}" }`,
      `liveness: { probe: { grpc: { host: 127.0.0.1, port: ${port} } }, period: 100ms, failureThreshold: 2 }`,
    ]);
    const run = track(startSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    await events.waitFor('app start', 'api answered-SERVING');
    const first = events.read().find((entry) => entry.name === 'api' && entry.event === 'start')!;
    process.kill(first.pid, 'SIGUSR2'); // turns NOT_SERVING
    const failed = await run.waitForLog((line) => line.event === 'liveness-failed');
    expect(failed.msg).toBe(`grpc://127.0.0.1:${port} failed 2 times in a row; last: grpc://127.0.0.1:${port}: NOT_SERVING`);
    await run.waitForLog((line) => line.event === 'ready' && line.proc === 'api' && line.pid !== first.pid);
    run.process.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    expect(events.sequence()).toEqual([
      'api start',
      'api listening',
      'api answered-SERVING',
      'app start',
      'api not-serving',
      'api answered-NOT_SERVING',
      'api stop',
      'api start',
      'api listening',
      'api answered-SERVING',
      'app stop',
      'api stop',
    ]);
    await expectNothingLeft(run);
  });
});

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, fixtureArgv, freePort, writeConfig, yamlArgv } from './support/commands.ts';
import { useHarness } from './support/harness.ts';
import { HOST_ONLY, PROC_SHOWS_KTHREADD, podWrapper, supervisorPid } from './support/namespaces.ts';
import { killStandins, startStandin } from './support/standin.ts';
import { FIXTURES, runSupervisor, startSupervisor } from './support/supervisor.ts';

// role external through the real CLI: the proxies are stand-ins started by the
// test, not by sidecar-init (as a sibling container's would be), each as a UID
// of its own that the matchers include, so parallel test files never see each
// other's. These tests may run on the host, in its initial PID namespace, so
// each external says allowHost: true; the namespace rule itself, and what
// needs a pod's namespace, run under unshare (podWrapper). The pod tier (npm run
// test:pod) plays the same in real pods.

const { track, events: createEvents, expectNothingLeft } = useHarness();

afterEach(() => {
  killStandins();
});

describe('externals', () => {
  it('holds the init step and the app until the external is ready, stops it after the app, exits with the app’s code', async () => {
    const events = createEvents();
    const proxy = await startStandin('pilot-agent', { args: ['--standin-ready-after=0.5'] });
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: mesh',
      '    role: external',
      `    match: { comm: pilot-agent, uid: ${proxy.uid} }`,
      '    allowHost: true',
      `    readiness: { probe: "${proxy.url(15021, '/healthz/ready')}" }`,
      `    stop: { http: "${proxy.url(15020, '/quitquitquit')}" }`,
      '  - name: migrate',
      '    role: init',
      `    command: ${yamlArgv(...fixtureArgv('exit-with.sh', 'migrate', '0'))}`,
      '  - name: job',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('exit-with.sh', 'job', '3'))}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(3);
    expect(events.sequence()).toEqual(['migrate start', 'migrate exit-0', 'job start', 'job exit-3']);
    const ready = proxy.events.find((event) => event.event === 'ready');
    const migrateStart = events.read()[0];
    expect(Number((migrateStart?.ns ?? 0n) / 1_000_000n)).toBeGreaterThanOrEqual(ready?.t ?? Number.POSITIVE_INFINITY);
    expect(await proxy.exited).toEqual({ code: 0, signal: null });
    expect(proxy.events.map((event) => event.event)).toContain('quit');
    const story = run.logs.filter((line) => line.proc === 'mesh').map((line) => line.event);
    // The /proc search and the HTTP probe run side by side from its turn on, and the probe passing is what makes it
    // started (docs/lifecycle.md): a proxy already ready answers before the search is done, so 'external-found' may
    // come on either side of 'ready'. It comes once, and before the stop, which ends the search.
    expect(story.filter((event) => event !== 'external-found')).toEqual(['ready', 'stopping', 'external-stop-request', 'external-stopped']);
    expect(story.filter((event) => event === 'external-found')).toHaveLength(1);
    expect(story.indexOf('external-found')).toBeLessThan(story.indexOf('stopping'));
    expect(run.logs[0]?.msg).toMatch(/^starting 1 init step, 0 sidecars, 1 external, app job; running as /);
    await expectNothingLeft(run);
  });

  it('an external that never gets ready fails startup (exit 1) and is still stopped', async () => {
    const events = createEvents();
    const proxy = await startStandin('pilot-agent', { args: ['--standin-never-ready'] });
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: mesh',
      '    role: external',
      '    preset: istio',
      `    match: { comm: pilot-agent, uid: ${proxy.uid} }`,
      '    allowHost: true',
      `    readiness: { probe: "${proxy.url(15021, '/healthz/ready')}", deadline: 500ms }`,
      `    stop: { http: "${proxy.url(15020, '/quitquitquit')}" }`,
      '  - name: job',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('exit-with.sh', 'job', '0'))}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(1);
    expect(events.sequence()).toEqual([]);
    expect(run.logs.find((line) => line.event === 'teardown')?.msg).toBe(
      'external mesh failed to start: found but not ready within its 500ms deadline; the app will not start',
    );
    expect(await proxy.exited).toEqual({ code: 0, signal: null });
    expect(proxy.events.map((event) => event.event)).toContain('quit');
    await expectNothingLeft(run);
  });

  it('an optional external that never appears is logged absent and skipped; sidecar-init never matches itself or its children', async () => {
    const events = createEvents();
    // The token is in sidecar-init's own command line (the config path) and in its sidecar's, which
    // runs while the external is looked for: neither may match.
    const dir = join(events.dir, 'self-match-token');
    const config = join(`${dir}.yaml`);
    writeFileSync(
      config,
      [
        'processes:',
        '  - name: helper',
        '    role: sidecar',
        `    command: ${yamlArgv('/bin/sh', '-c', 'sleep 30 # self-match-token')}`,
        '  - name: mesh',
        '    role: external',
        '    match: { cmdline: self-match-token }',
        '    allowHost: true',
        '    optional: true',
        '    readiness: { deadline: 300ms }',
        '  - name: job',
        '    role: app',
        `    command: ${yamlArgv('/bin/sh', '-c', `. ${fixture('record.sh')}; NAME=job; record start`)}`,
        '',
      ].join('\n'),
    );
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    expect(run.code).toBe(0);
    expect(events.sequence()).toEqual(['job start']);
    expect(run.logs.filter((line) => line.proc === 'mesh').map((line) => line.event)).toEqual(['external-absent']);
    await expectNothingLeft(run);
  });

  it('--external NAME=comm:… in a pod’s namespace waits for the process to exist, and stops it by signal after the app', async () => {
    const events = createEvents();
    const go = join(events.dir, 'go');
    const done = join(events.dir, 'done');
    // The pod's other container starts its proxy only once sidecar-init is looking for it
    // (containers start in any order); until it execs, the waiting shell is called sh.
    const proxy = `(while [ ! -e ${go} ]; do sleep 0.01; done; exec ${fixture('serve.sh', 'proxy')}) &`;
    // The job ends only once the test has seen the proxy start, so the stop never races its start-up.
    const job = `. ${fixture('record.sh')}; NAME=job; record start; while [ ! -e ${done} ]; do sleep 0.01; done; record exit-0`;
    const running = track(
      startSupervisor(['--external', 'proxy=comm:serve.sh', '--', '/bin/sh', '-c', job], {
        wrapper: podWrapper(proxy),
        env: { EVENTS: events.file },
      }),
    );
    await running.waitForLog((line) => line.event === 'starting');
    writeFileSync(go, '');
    await events.waitFor('proxy start', 'job start');
    writeFileSync(done, '');
    const result = await running.exited;
    expect(result).toEqual({ code: 0, signal: null });
    // The job started only once the proxy was found; the proxy heard SIGTERM after the job ended.
    const proxyPid = events.read().find((entry) => entry.name === 'proxy')?.pid;
    const story = running.logs.filter((line) => line.event === 'external-found' || line.event === 'spawned');
    expect(story.map((line) => [line.event, line.proc, line.pid])).toEqual([
      ['external-found', 'proxy', proxyPid],
      ['spawned', 'app', expect.any(Number)],
    ]);
    // Found as soon as it execs, the proxy may record its start after the job's.
    expect([...events.sequence().slice(0, 2)].sort()).toEqual(['job start', 'proxy start']);
    expect(events.sequence().slice(2)).toEqual(['job exit-0', 'proxy stop']);
    expect(running.logs.filter((line) => line.proc === 'proxy').map((line) => line.event)).toEqual([
      'external-found',
      'ready',
      'stopping',
      'external-stopping',
      'external-stopped',
    ]);
    await expectNothingLeft(running);
  });
});

describe('a proxy that exits non-zero on SIGTERM', () => {
  // cloud-sql-proxy exits 143 on SIGTERM unless run with --exit-zero-on-sigterm, which fails its
  // container and the pod (a Job too). Without --quitquitquit its quit port refuses: SIGTERM follows.
  const runWithSqlProxy = async (args: readonly string[]) => {
    const events = createEvents();
    const proxy = await startStandin('cloud-sql-proxy', { args: ['--health-check', '--standin-sigterm-exit-code=143', ...args] });
    const quitPort = await freePort();
    const config = writeConfig(events.dir, [
      'processes:',
      '  - name: db',
      '    role: external',
      '    preset: cloud-sql-proxy',
      `    match: { comm: cloud-sql-proxy, uid: ${proxy.uid} }`,
      '    allowHost: true',
      `    readiness: { probe: "${proxy.url(9090, '/startup')}" }`,
      `    stop: { http: "http://127.0.0.1:${quitPort}/quitquitquit" }`,
      '  - name: job',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('exit-with.sh', 'job', '0'))}`,
    ]);
    const run = track(await runSupervisor(['-c', config], { env: { EVENTS: events.file } }));
    return { run, proxy };
  };

  it('is warned of before the SIGTERM, naming the consequence and the fix', async () => {
    const { run, proxy } = await runWithSqlProxy([]);
    expect(run.code).toBe(0);
    expect(await proxy.exited).toEqual({ code: 143, signal: null });
    const story = run.logs.filter((line) => line.proc === 'db').map((line) => line.event);
    expect(story.slice(story.indexOf('external-stop-request'))).toEqual([
      'external-stop-request',
      'external-exit-fails-pod',
      'external-stopping',
      'external-stopped',
    ]);
    expect(run.logs.find((line) => line.event === 'external-exit-fails-pod')).toMatchObject({
      level: 'warn',
      signal: 'SIGTERM',
      exitCode: 143,
      msg: 'cloud-sql-proxy exits 143 on SIGTERM, which fails this pod: run it with --quitquitquit or --exit-zero-on-sigterm',
    });
    await expectNothingLeft(run);
  });

  it('is not warned of when its command line makes SIGTERM exit 0', async () => {
    const { run, proxy } = await runWithSqlProxy(['--exit-zero-on-sigterm']);
    expect(run.code).toBe(0);
    await proxy.exited;
    expect(run.logs.some((line) => line.proc === 'db' && line.event === 'external-stopping')).toBe(true);
    expect(run.logs.some((line) => line.event === 'external-exit-fails-pod')).toBe(false);
    await expectNothingLeft(run);
  });

  it('is said by plan on its stop line, and by validate when nothing but a signal can stop it', async () => {
    const events = createEvents();
    const lines = (stop: string) => [
      'processes:',
      '  - name: db',
      '    role: external',
      '    match: { comm: cloud-sql-proxy }',
      stop,
      '  - name: job',
      '    role: app',
      `    command: ${yamlArgv(...fixtureArgv('exit-with.sh', 'job', '0'))}`,
    ];
    const sentence = 'cloud-sql-proxy exits 143 on SIGTERM, which fails this pod: run it with --quitquitquit or --exit-zero-on-sigterm';
    const signalOnly = writeConfig(events.dir, lines('    stop: { signal: SIGTERM }'));
    const validated = track(await runSupervisor(['validate', '-c', signalOnly]));
    expect(validated.code).toBe(0);
    expect(validated.stderr()).toBe(`${signalOnly}: warning: external db has no stop endpoint, and ${sentence}\n`);
    const planned = track(await runSupervisor(['plan', '-c', signalOnly]));
    expect(planned.stdout()).toContain(`    stop:       SIGTERM, then waited for within the budget; ${sentence}\n`);
    // With a stop endpoint validate is content, and plan still says what the fallback would do.
    const withEndpoint = writeConfig(events.dir, lines('    stop: { http: "http://127.0.0.1:9091/quitquitquit" }'));
    const validatedWithEndpoint = track(await runSupervisor(['validate', '-c', withEndpoint]));
    expect(validatedWithEndpoint.stderr()).toBe('');
    const plannedWithEndpoint = track(await runSupervisor(['plan', '-c', withEndpoint]));
    expect(plannedWithEndpoint.stdout()).toContain(
      `    stop:       POST http://127.0.0.1:9091/quitquitquit, then SIGTERM if it does not accept, then waited for within the budget; ${sentence}\n`,
    );
  });
});

describe('externals and the processes they may touch', () => {
  it(`are refused where /proc shows the host’s processes (exit 2, nothing spawned, nothing signalled) unless allowHost (${HOST_ONLY})`, async (context) => {
    context.skip(!PROC_SHOWS_KTHREADD, HOST_ONLY);
    const events = createEvents();
    // Another user's process on the host that a matcher happens to fit.
    const token = `1000.${process.pid}`;
    const bystander = spawn('sleep', [token], { stdio: 'ignore' });
    try {
      const app = `. ${fixture('record.sh')}; NAME=app; record start`;
      const run = track(
        await runSupervisor(['--external', `d=cmdline:^sleep ${token.replace('.', '\\.')}$`, '--', '/bin/sh', '-c', app], {
          env: { EVENTS: events.file },
        }),
      );
      expect(run.code).toBe(2);
      expect(run.stderr()).toMatch(/^sidecar-init: external d: sidecar-init sees the host's processes .*set allowHost: true on it/);
      expect(events.sequence()).toEqual([]);
      expect(bystander.exitCode).toBeNull();
      expect(bystander.signalCode).toBeNull();
      expect(readFileSync(`/proc/${bystander.pid}/cmdline`, 'latin1')).toBe(`sleep\0${token}\0`);
    } finally {
      bystander.kill('SIGKILL');
    }
  });

  it(`are refused where the start line names the host’s PID namespace, in the same words; a pod’s namespace is named shared (${HOST_ONLY})`, async (context) => {
    context.skip(!PROC_SHOWS_KTHREADD, HOST_ONLY);
    const onHost = track(await runSupervisor(['--', 'true']));
    expect(onHost.code).toBe(0);
    expect(onHost.logs[0]).toMatchObject({ event: 'starting', namespace: 'host' });
    expect(onHost.logs[0]?.msg).toMatch(
      /; running as a subreaper in the host's PID namespace \(sidecar-init sees the host's processes, \d+ besides its own\)$/,
    );
    // The same machine, in a PID namespace of its own with one other "container's" process: a pod's.
    const inPod = track(await runSupervisor(['--', 'true'], { wrapper: podWrapper('sleep 30 &') }));
    expect(inPod.code).toBe(0);
    expect(inPod.logs[0]).toMatchObject({ event: 'starting', namespace: 'shared' });
    expect(inPod.logs[0]?.msg).toMatch(
      /; running as a subreaper in a shared PID namespace, where 1 process of other containers is visible$/,
    );
  });

  it('one whose matcher matches more processes than maxMatches at teardown is not signalled; the run fails, listing them', async () => {
    const events = createEvents();
    const more = join(events.dir, 'more');
    const done = join(events.dir, 'done');
    // Two copies of the same program in the pod, the second one started after the first was found.
    const target = (name: string) => `${FIXTURES}record-signals.sh ${name}`;
    const targets = [`${target('one')} &`, `(while [ ! -e ${more} ]; do sleep 0.01; done; exec ${target('two')}) &`].join('\n');
    const job = `. ${fixture('record.sh')}; NAME=job; record start; while [ ! -e ${done} ]; do sleep 0.01; done; record exit-0`;
    const run = track(
      startSupervisor(
        ['--grace', '2s', '--external', `tool=cmdline:^/bin/sh \\S+/record-signals\\.sh (one|two)$`, '--', '/bin/sh', '-c', job],
        {
          wrapper: podWrapper(targets),
          env: { EVENTS: events.file },
        },
      ),
    );
    await events.waitFor('one start', 'job start');
    writeFileSync(more, '');
    await events.waitFor('two start');
    writeFileSync(done, '');
    expect(await run.exited).toEqual({ code: 1, signal: null });
    const refused = run.logs.find((line) => line.event === 'external-refused');
    const pids = events
      .read()
      .filter((entry) => entry.name === 'one' || entry.name === 'two')
      .map((entry) => entry.pid);
    expect(refused?.pids).toEqual(expect.arrayContaining(pids));
    expect(refused?.msg).toMatch(
      /^refusing to stop external tool: cmdline \/.*\/ matches 2 processes, more than its maxMatches 1: PID \d+ "record-signals\." UID 0 cmdline "\/bin\/sh \S+\/record-signals\.sh (one|two)", PID \d+ .*; make the match narrower/,
    );
    // Neither heard a signal from sidecar-init (record-signals records a TERM as "stop").
    expect([...events.sequence()].sort()).toEqual(['job exit-0', 'job start', 'one start', 'two start']);
    await expectNothingLeft(run);
  });

  it('one that comes back under a new PID is not reported stopped: each PID is signalled, and the run fails naming what remains', async () => {
    const events = createEvents();
    const token = `1000.${process.pid}`;
    // A restart loop in the other container: every sleep killed is replaced at once.
    const targets = `(while :; do sleep ${token}; done) &`;
    const run = track(
      await runSupervisor(['--grace', '1s', '--external', `d=cmdline:^sleep ${token.replace('.', '\\.')}$`, '--', 'true'], {
        wrapper: podWrapper(targets),
        env: { EVENTS: events.file },
      }),
    );
    expect(run.code).toBe(1);
    const story = run.logs.filter((line) => line.proc === 'd').map((line) => line.event);
    expect(story).not.toContain('external-stopped');
    expect(story).not.toContain('external-killed');
    const signalled = run.logs.filter((line) => line.proc === 'd' && line.event === 'external-stopping').flatMap((line) => line.pids);
    expect(new Set(signalled).size).toBeGreaterThan(1);
    const left = run.logs.find((line) => line.event === 'external-left-running');
    expect(left?.msg).toMatch(
      new RegExp(
        `^external d is still running after the grace budget: PID \\d+ "sleep" UID 0 cmdline "sleep ${token.replace('.', '\\.')}"; sidecar-init exits non-zero$`,
      ),
    );
    await expectNothingLeft(run);
  });
});

describe('externals left alone', () => {
  it('stay alone when teardown is hurried: stopOnFailure: false and stop: none hold when the budget runs out', async () => {
    const events = createEvents();
    const target = (name: string) => `${FIXTURES}record-signals.sh ${name}`;
    const matcher = (name: string) => `'^/bin/sh \\S+/record-signals\\.sh ${name}$'`;
    const config = writeConfig(events.dir, [
      'grace: 1s',
      'processes:',
      '  - name: proxy',
      '    role: external',
      `    match: { cmdline: ${matcher('proxy')} }`,
      '    stopOnFailure: false',
      '  - name: agent',
      '    role: external',
      `    match: { cmdline: ${matcher('agent')} }`,
      '    stop: none',
      '  - name: app',
      '    role: app',
      // It ignores SIGTERM: the budget runs out while both externals still wait behind it.
      `    command: ${yamlArgv(...fixtureArgv('ignore-term.sh', 'app'))}`,
    ]);
    const run = track(
      startSupervisor(['-c', config], { wrapper: podWrapper(`${target('proxy')} &\n${target('agent')} &`), env: { EVENTS: events.file } }),
    );
    await events.waitFor('proxy start', 'agent start', 'app start');
    await run.waitForLog((line) => line.event === 'spawned' && line.proc === 'app');
    process.kill(supervisorPid(run), 'SIGTERM');
    expect(await run.exited).toEqual({ code: 137, signal: null });
    const kept = run.logs.filter((line) => line.event === 'external-kept').map((line) => [line.proc, line.msg]);
    expect(kept).toEqual([
      ['proxy', 'left running: sidecar-init exits non-zero and stopOnFailure is false'],
      ['agent', 'left running (stop: none)'],
    ]);
    expect(run.logs.filter((line) => line.proc === 'proxy' || line.proc === 'agent').map((line) => line.event)).not.toContain('stopping');
    // Neither heard a signal from sidecar-init (record-signals records a TERM as "stop").
    const externals = events.read().filter((entry) => entry.name === 'proxy' || entry.name === 'agent');
    expect(externals.map((entry) => `${entry.name} ${entry.event}`).sort()).toEqual(['agent start', 'proxy start']);
    await expectNothingLeft(run);
  });
});

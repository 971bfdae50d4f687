import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useHarness } from './support/harness.ts';
import { runSupervisor } from './support/supervisor.ts';

// Per-process user and group, with real uids: sidecar-init runs as root (these
// tests need it, as the PID-1 tests do) and each process, its exec probe and
// its preStop hook run as the user the plan gives it. Everything a process run
// as nobody touches lives in a world-writable temporary directory, since the
// checkout may sit where nobody cannot read.

const { track, expectNothingLeft } = useHarness();

const NOBODY = 65534;
const NOBODY_HOME = readFileSync('/etc/passwd', 'utf8')
  .split('\n')
  .find((line) => line.startsWith('nobody:'))!
  .split(':')[5]!;

/**
 * sidecar-init as root with supplementary groups (4 and 100), so that a
 * process that shows none had them cleared, not merely never had any.
 */
const ROOT_WITH_GROUPS = ['setpriv', '--groups=4,100'];

/**
 * sidecar-init as nobody. CAP_DAC_READ_SEARCH only lets it read node and its
 * bundle wherever the checkout is; it grants nothing that changes ids.
 */
const AS_NOBODY = [
  'setpriv',
  `--reuid=${NOBODY}`,
  `--regid=${NOBODY}`,
  '--clear-groups',
  '--inh-caps=+dac_read_search',
  '--ambient-caps=+dac_read_search',
];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A directory anyone may write, holding identity.sh NAME: it writes who it runs
 * as (`id`, the Uid/Gid/Groups lines of its /proc/PID/status, HOME) to NAME
 * beside itself, all at once (written aside, then renamed), so a reader never
 * sees half of it.
 */
function identityDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sidecar-init-user-'));
  dirs.push(dir);
  chmodSync(dir, 0o777);
  const script = join(dir, 'identity.sh');
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      'out="$(dirname "$0")/$1"',
      '{ id; grep -E "^(Uid|Gid|Groups):" /proc/$$/status; echo "HOME=$HOME"; } > "$out.tmp" && mv "$out.tmp" "$out"',
      '',
    ].join('\n'),
  );
  chmodSync(script, 0o755);
  return dir;
}

interface Identity {
  readonly id: string;
  /** "Uid: 65534 65534 65534 65534", tabs as spaces. */
  readonly uid: string;
  readonly gid: string;
  /** "Groups:" when the list is empty. */
  readonly groups: string;
  readonly home: string;
}

function identityOf(dir: string, name: string): Identity {
  const lines = readFileSync(join(dir, name), 'utf8')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim());
  const field = (prefix: string) => lines.find((line) => line.startsWith(prefix)) ?? `no ${prefix} line`;
  return { id: lines[0]!, uid: field('Uid:'), gid: field('Gid:'), groups: field('Groups:'), home: field('HOME=') };
}

/** What a process run as uid:gid with no supplementary group shows. */
function runningAs(uid: number, gid: number, home: string): Omit<Identity, 'id'> {
  return { uid: `Uid: ${uid} ${uid} ${uid} ${uid}`, gid: `Gid: ${gid} ${gid} ${gid} ${gid}`, groups: 'Groups:', home: `HOME=${home}` };
}

describe('per-process user and group', () => {
  it('runs an init step as root and a sidecar, its exec probe, its preStop and the app as nobody, with no supplementary groups', async () => {
    const dir = identityDir();
    const script = join(dir, 'identity.sh');
    const config = join(dir, 'pod.yaml');
    // The Istio shape: the init step keeps root (iptables needs it), the rest drop it.
    writeFileSync(
      config,
      `
processes:
  - name: net-setup
    role: init
    command: [${script}, net-setup]
  - name: proxy
    role: sidecar
    user: "${NOBODY}:${NOBODY}"
    cwd: ${dir}
    command: [sh, -c, '${script} proxy && exec sleep 1000']
    readiness:
      probe: { exec: [sh, -c, 'test -e ${dir}/proxy && ${script} probe'] }
    preStop:
      exec: [${script}, prestop]
  - name: job
    role: app
    user: nobody
    cwd: ${dir}
    env: { HOME: /srv/job }
    command: [${script}, job]
`,
    );
    const run = track(await runSupervisor(['-c', config], { wrapper: ROOT_WITH_GROUPS, env: { HOME: '/root' } }));
    expect(run.stderr()).not.toContain('"level":"error"');
    expect(run.code).toBe(0);

    // The init step keeps sidecar-init's user and groups.
    expect(identityOf(dir, 'net-setup')).toMatchObject({
      uid: 'Uid: 0 0 0 0',
      gid: 'Gid: 0 0 0 0',
      groups: 'Groups: 4 100',
      home: 'HOME=/root',
    });
    for (const name of ['proxy', 'probe', 'prestop']) {
      const identity = identityOf(dir, name);
      expect(identity.id, name).toMatch(new RegExp(`^uid=${NOBODY}\\(nobody\\) gid=${NOBODY}\\b`));
      expect({ name, ...identity }).toMatchObject({ name, ...runningAs(NOBODY, NOBODY, NOBODY_HOME) });
    }
    // The app's own env sets HOME, which wins over the user's.
    expect(identityOf(dir, 'job')).toMatchObject(runningAs(NOBODY, NOBODY, '/srv/job'));
    const spawned = run.logs.filter((line) => line.event === 'spawned').map((line) => [line.proc, line.uid, line.gid]);
    expect(spawned).toEqual([
      ['net-setup', undefined, undefined],
      ['proxy', NOBODY, NOBODY],
      ['job', NOBODY, NOBODY],
    ]);
    await expectNothingLeft(run);
  });

  it("takes --user NAME=USER[:GROUP]; a uid without a passwd entry gets HOME=/, never sidecar-init's", async () => {
    const dir = identityDir();
    const script = join(dir, 'identity.sh');
    const run = track(
      await runSupervisor(
        ['--init', `first=${script} first`, '--user', 'first=4242:4343', '--user', `app=${NOBODY}`, '--', script, 'job'],
        {
          env: { HOME: '/root' },
        },
      ),
    );
    expect(run.code).toBe(0);
    expect(identityOf(dir, 'first')).toMatchObject(runningAs(4242, 4343, '/'));
    expect(identityOf(dir, 'job')).toMatchObject(runningAs(NOBODY, NOBODY, NOBODY_HOME));
    await expectNothingLeft(run);
  });

  it('fails with 126 and names the uid when the program is executable by root but not by the user', async () => {
    const dir = identityDir();
    const program = join(dir, 'root-only.sh');
    writeFileSync(program, '#!/bin/sh\nexit 0\n');
    chmodSync(program, 0o700);
    const run = track(await runSupervisor(['--user', `app=${NOBODY}:${NOBODY}`, '--', program]));
    expect(run.code).toBe(126);
    expect(run.logs.find((line) => line.event === 'spawn-failed')?.msg).toBe(
      `cannot execute ${program} as uid ${NOBODY} gid ${NOBODY}: the system refused (that user needs execute permission ` +
        'on it and search permission on each directory above it; in a user namespace the ids must be mapped)',
    );
    await expectNothingLeft(run);
  });

  it('refuses unknown user and group names with their positions, exit 2, starting nothing', async () => {
    const dir = identityDir();
    const config = join(dir, 'pod.yaml');
    writeFileSync(
      config,
      [
        'processes:',
        `  - { name: first, role: init, command: [${join(dir, 'identity.sh')}, first], user: "nobdy:nogrop" }`,
        '  - name: job',
        '    role: app',
        `    command: [${join(dir, 'identity.sh')}, job]`,
        '    group: no-such-group',
        '',
      ].join('\n'),
    );
    const run = track(await runSupervisor(['-c', config, '--user', 'job=nobodyy']));
    expect(run.code).toBe(2);
    expect(run.stderr()).toBe(
      [
        'sidecar-init: 3 configuration problems; nothing was started:',
        `  ${config}:2:93 processes[0].user: no user "nobdy" in /etc/passwd (did you mean nobody?); no group "nogrop" in /etc/group (did you mean nogroup?)`,
        `  ${config}:6:5 processes[1].group: no group "no-such-group" in /etc/group`,
        '  --user job=nobodyy: no user "nobodyy" in /etc/passwd (did you mean nobody?)',
        '',
      ].join('\n'),
    );
    expect(existsSync(join(dir, 'first'))).toBe(false);
    expect(existsSync(join(dir, 'job'))).toBe(false);
  });

  it('refuses a uid or gid past what a process can run as (2^31-1) the same way in validate and in a run: exit 2, nothing started', async () => {
    // It used to pass every check and fail at its process's turn, after the processes before it had started.
    const dir = identityDir();
    const script = join(dir, 'identity.sh');
    const config = join(dir, 'ids.yaml');
    const line = `  - { name: s2, role: init, command: [${script}, s2], user: "1000:2147483648" }`;
    writeFileSync(config, ['processes:', line, ''].join('\n'));
    const gidLine = `${config}:2:${line.indexOf('user:') + 1} processes[0].user: 2147483648 is not a gid; use a whole number from 0 to 2147483647`;
    const checked = track(await runSupervisor(['validate', '-c', config, '--', script, 'job']));
    expect(checked.stderr()).toBe(`sidecar-init: 1 configuration problem; the configuration is not valid:\n  ${gidLine}\n`);
    expect(checked.code).toBe(2);
    const ran = track(await runSupervisor(['-c', config, '--init', `s1=${script} s1`, '--user', 's1=2147483648', '--', script, 'job']));
    expect(ran.stderr()).toBe(
      'sidecar-init: 2 configuration problems; nothing was started:\n' +
        `  ${gidLine}\n` +
        '  --user s1=2147483648: 2147483648 is not a uid; use a whole number from 0 to 2147483647\n',
    );
    expect(ran.code).toBe(2);
    for (const name of ['s1', 's2', 'job']) expect(existsSync(join(dir, name))).toBe(false);
    // The largest id is one a process runs as.
    const largest = track(await runSupervisor(['--user', 'app=2147483647:2147483647', '--', script, 'job'], { cwd: dir }));
    expect(largest.code, largest.stderr()).toBe(0);
    expect(identityOf(dir, 'job')).toMatchObject({ uid: 'Uid: 2147483647 2147483647 2147483647 2147483647' });
    await expectNothingLeft(largest);
  });

  it('refuses, when sidecar-init is not root, to start a process as another user: exit 2, nothing started', async () => {
    const dir = identityDir();
    const script = join(dir, 'identity.sh');
    const refused = track(
      await runSupervisor(['--init', `first=${script} first`, '--user', 'first=root', '--', script, 'job'], { wrapper: AS_NOBODY }),
    );
    expect(refused.stderr()).toBe(
      'sidecar-init: 1 configuration problem; nothing was started:\n' +
        `  --user first=root: sidecar-init runs as uid ${NOBODY} gid ${NOBODY}, not as root, so it cannot start "first" as uid 0 gid 0; ` +
        'run sidecar-init as root (each process then drops to its own user), or leave out the user and group of "first"\n',
    );
    expect(refused.code).toBe(2);
    expect(existsSync(join(dir, 'first'))).toBe(false);
    expect(existsSync(join(dir, 'job'))).toBe(false);

    // Its own user is no other user: allowed. It runs in a folder nobody can
    // enter, as the checkout may be one nobody cannot (a private /root).
    const allowed = track(
      await runSupervisor(['--user', `app=${NOBODY}:${NOBODY}`, '--', script, 'job'], { wrapper: AS_NOBODY, cwd: dir }),
    );
    expect(allowed.code, allowed.stderr()).toBe(0);
    expect(identityOf(dir, 'job')).toMatchObject({ uid: `Uid: ${NOBODY} ${NOBODY} ${NOBODY} ${NOBODY}`, groups: 'Groups:' });
    await expectNothingLeft(allowed);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dedent, FILE, load, problemsOf } from '../../test/support/config.ts';
import { parseGroup, parseUser, readAccountFiles } from './user.ts';
import { EMPTY_CLI_INPUT, type CliInput } from './flags.ts';
import { ConfigError } from './config-error.ts';
import { loadPlan } from './load-plan.ts';
import type { Identity } from './entries.ts';

// user and group resolve through this machine's /etc/passwd and /etc/group,
// as they will in the image: root and nobody (65534) are in every Debian and
// Alpine base, nogroup (65534) in Debian's.

const APP = '  - { name: job, role: app, command: job }';
const NOBODY = readFileSync('/etc/passwd', 'utf8')
  .split('\n')
  .find((line) => line.startsWith('nobody:'))!
  .split(':');
const NOBODY_HOME = NOBODY[5];

/** A uid with no /etc/passwd entry. */
const UNLISTED_UID = 4_242_424;

function processes(yaml: string) {
  return load({ yaml }).processes;
}

/** The lines of the ConfigError of a run by `identity`, or [] when the plan was built. */
function problemsAs(identity: Identity, yaml: string | undefined, cli: Partial<CliInput> = {}): string[] {
  try {
    loadPlan({
      cli: { ...EMPTY_CLI_INPUT, ...cli },
      configFile: yaml === undefined ? undefined : FILE,
      readFile: () => dedent(yaml ?? ''),
      identity,
    });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.text);
    throw error;
  }
}

describe('user and group of a process', () => {
  it('resolves names and numbers: the primary group and HOME from /etc/passwd, gid 0 and HOME / for an unlisted uid', () => {
    const yaml = `
      processes:
        - { name: a, role: init, command: a, user: nobody }
        - { name: b, role: init, command: b, user: "nobody:root" }
        - { name: c, role: init, command: c, user: 65534 }
        - { name: d, role: init, command: d, user: "${UNLISTED_UID}:${UNLISTED_UID}" }
        - { name: e, role: init, command: e, user: ${UNLISTED_UID} }
        - { name: f, role: init, command: f, user: root, group: nogroup }
        - { name: g, role: init, command: g, group: 1000 }
        - { name: h, role: init, command: h }
      ${APP}
    `;
    expect(processes(yaml).map((spec) => [spec.name, spec.user])).toEqual([
      ['a', { uid: 65534, gid: 65534, home: NOBODY_HOME }],
      ['b', { uid: 65534, gid: 0, home: NOBODY_HOME }],
      ['c', { uid: 65534, gid: 65534, home: NOBODY_HOME }],
      ['d', { uid: UNLISTED_UID, gid: UNLISTED_UID, home: '/' }],
      ['e', { uid: UNLISTED_UID, gid: 0, home: '/' }],
      ['f', { uid: 0, gid: 65534, home: '/root' }],
      ['g', { uid: undefined, gid: 1000, home: undefined }],
      ['h', undefined],
      ['job', undefined],
    ]);
  });

  it('reports unknown names, bad ids and a group given twice, each at its field', () => {
    const yaml = `
      processes:
        - name: a
          role: init
          command: a
          user: nobdy
        - name: b
          role: init
          command: b
          user: "bogus:nogrop"
        - name: c
          role: init
          command: c
          group: wheel-of-fortune
        - name: d
          role: init
          command: d
          user: "1000:1000"
          group: 1000
        - { name: e, role: init, command: e, user: -1 }
        - { name: f, role: init, command: f, user: 4294967295 }
        - { name: g, role: init, command: g, user: "" }
        - { name: h, role: init, command: h, user: "a:b:c" }
        - { name: i, role: init, command: i, user: [root] }
      ${APP}
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:5:5 processes[0].user: no user "nobdy" in /etc/passwd (did you mean nobody?)',
      'demo.yaml:9:5 processes[1].user: no user "bogus" in /etc/passwd; no group "nogrop" in /etc/group (did you mean nogroup?)',
      'demo.yaml:13:5 processes[2].group: no group "wheel-of-fortune" in /etc/group',
      'demo.yaml:18:5 processes[3].group: the group is already given in user ("1000:1000"); give it in one place',
      'demo.yaml:19:40 processes[4].user: -1 is not a uid; use a whole number from 0 to 2147483647',
      'demo.yaml:20:40 processes[5].user: 4294967295 is not a uid; use a whole number from 0 to 2147483647',
      'demo.yaml:21:40 processes[6].user: the user is empty; give a user name from /etc/passwd or a numeric uid, optionally with :GROUP, e.g. "nobody", "1000" or "1000:1000"',
      'demo.yaml:22:40 processes[7].user: "b:c" is not a group name; give a group name from /etc/group or a numeric gid, e.g. "nogroup" or "1000"',
      'demo.yaml:23:40 processes[8].user: expected a string or a number, got a list',
    ]);
  });

  it('tells a number that is no id from a name, and reports the group alone when only it is wrong', () => {
    const yaml = `
      processes:
        - { name: a, role: init, command: a, user: web2 }
        - { name: b, role: init, command: b, user: "1000x" }
        - { name: c, role: init, command: c, user: "1.0" }
        - { name: d, role: init, command: d, user: "5." }
        - { name: e, role: init, command: e, user: "-0" }
        - { name: f, role: init, command: f, group: "-1" }
        - { name: g, role: init, command: g, group: "" }
        - { name: h, role: init, command: h, user: ":1000" }
        - { name: i, role: init, command: i, user: "nobody:nogrop" }
        - { name: j, role: init, command: j, user: "1000:1000", group: ~ }
      ${APP}
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:40 processes[0].user: no user "web2" in /etc/passwd',
      'demo.yaml:3:40 processes[1].user: no user "1000x" in /etc/passwd',
      'demo.yaml:4:40 processes[2].user: 1.0 is not a uid; use a whole number from 0 to 2147483647',
      'demo.yaml:5:40 processes[3].user: 5. is not a uid; use a whole number from 0 to 2147483647',
      'demo.yaml:6:40 processes[4].user: -0 is not a uid; use a whole number from 0 to 2147483647',
      'demo.yaml:7:40 processes[5].group: -1 is not a gid; use a whole number from 0 to 2147483647',
      'demo.yaml:8:40 processes[6].group: the group is empty; give a group name from /etc/group or a numeric gid, e.g. "nogroup" or "1000"',
      'demo.yaml:9:40 processes[7].user: the user is empty; give a user name from /etc/passwd or a numeric uid, optionally with :GROUP, e.g. "nobody", "1000" or "1000:1000"',
      'demo.yaml:10:40 processes[8].user: no group "nogrop" in /etc/group (did you mean nogroup?)',
      // An empty group is its own problem, not a second group.
      'demo.yaml:11:59 processes[9].group: expected a string or a number, got an empty value (null)',
    ]);
  });

  it('takes --user NAME=USER[:GROUP], which replaces the user and group of the file', () => {
    const yaml = `
      processes:
        - { name: init-net, role: init, command: iptables-restore, user: root }
        - { name: job, role: app, command: job, user: "1000:1000" }
    `;
    const [init, job] = load({ yaml, cli: { user: ['job=nobody', 'init-net=0:0'] } }).processes;
    expect(init!.user).toEqual({ uid: 0, gid: 0, home: '/root' });
    expect(job!.user).toEqual({ uid: 65534, gid: 65534, home: NOBODY_HOME });
    expect(problemsOf({ yaml, cli: { user: ['job', 'job=nobdy', 'nojob=nobody', 'init-net=root', 'init-net=nobody'] } })).toEqual([
      '--user job: expected NAME=USER[:GROUP], e.g. --user app=nobody or --user app=1000:1000',
      '--user job=nobdy: no user "nobdy" in /etc/passwd (did you mean nobody?)',
      '--user nojob=nobody: no process is named "nojob"; the processes are init-net, job',
      '--user init-net=nobody: --user was already given for "init-net" (see --user init-net=root)',
    ]);
  });

  it('refuses, for a run by anyone but root, a user or group other than its own, at the field or flag that asked', () => {
    const yaml = `
      processes:
        - { name: a, role: init, command: a, user: "1000:1000" }
        - { name: b, role: init, command: b, user: nobody }
        - { name: c, role: init, command: c, group: 1001 }
        - { name: d, role: init, command: d, group: 1000 }
        - { name: job, role: app, command: job }
    `;
    const asUser = { uid: 1000, gid: 1000 };
    expect(problemsAs(asUser, yaml, { user: ['job=0'] })).toEqual([
      'demo.yaml:3:40 processes[1].user: sidecar-init runs as uid 1000 gid 1000, not as root, so it cannot start "b" as uid 65534 gid 65534; run sidecar-init as root (each process then drops to its own user), or leave out the user and group of "b"',
      'demo.yaml:4:40 processes[2].group: sidecar-init runs as uid 1000 gid 1000, not as root, so it cannot start "c" as uid 1000 gid 1001; run sidecar-init as root (each process then drops to its own user), or leave out the user and group of "c"',
      '--user job=0: sidecar-init runs as uid 1000 gid 1000, not as root, so it cannot start "job" as uid 0 gid 0; run sidecar-init as root (each process then drops to its own user), or leave out the user and group of "job"',
    ]);
    // Root may start anything as anyone; validate (no identity) checks only the names.
    expect(problemsAs({ uid: 0, gid: 0 }, yaml, { user: ['job=0'] })).toEqual([]);
    expect(() => load({ yaml, cli: { user: ['job=0'] } })).not.toThrow();
  });

  it('refuses, for a run by anyone but root, another uid with its own gid, and checks only processes that could be read', () => {
    const asUser = { uid: 1000, gid: 1000 };
    const yaml = `
      processes:
        - { name: a, role: init, command: a, user: "0:1000" }
        - { name: b, role: init, command: b }
        - { name: job, role: app, command: job }
    `;
    expect(problemsAs(asUser, yaml)).toEqual([
      'demo.yaml:2:40 processes[0].user: sidecar-init runs as uid 1000 gid 1000, not as root, so it cannot start "a" as uid 0 gid 1000; run sidecar-init as root (each process then drops to its own user), or leave out the user and group of "a"',
    ]);
    // A --user that names no user is that problem alone, not a user the run cannot switch to.
    expect(problemsAs(asUser, yaml, { user: ['job=nobdy'] })).toEqual([
      'demo.yaml:2:40 processes[0].user: sidecar-init runs as uid 1000 gid 1000, not as root, so it cannot start "a" as uid 0 gid 1000; run sidecar-init as root (each process then drops to its own user), or leave out the user and group of "a"',
      '--user job=nobdy: no user "nobdy" in /etc/passwd (did you mean nobody?)',
    ]);
    // A process with a problem of its own, and a --user that names no user, are reported as such.
    const broken = `
      processes:
        - { name: c, role: init, command: c, grace: soon, user: "0:0" }
        - { name: job, role: app, command: job }
    `;
    expect(problemsAs(asUser, broken, { user: ['job=nobdy'] })).toEqual([
      'demo.yaml:2:40 processes[0].grace: "soon" is not a duration; use e.g. 500ms, 5s, 1m',
      '--user job=nobdy: no user "nobdy" in /etc/passwd (did you mean nobody?)',
    ]);
    // An app after -- that cannot be read is reported once, not also as a user it cannot switch to.
    expect(problemsAs({ uid: 1000, gid: 1000 }, undefined, { app: [''], user: ['app=0'] })).toEqual([
      '-- : the program name is empty; give the program and its arguments, e.g. "envoy -c /etc/envoy.yaml"',
    ]);
  });

  it("resolves names through the accounts it is given, a step of its own: the image's files, not necessarily this machine's", () => {
    const files: Record<string, string> = {
      '/etc/passwd': 'root:x:0:0:root:/root:/bin/sh\nalice:x:1234:2345::/home/alice:/bin/sh\n',
      '/etc/group': 'root:x:0:\nstaff:x:50:\n',
    };
    const read: string[] = [];
    const accounts = readAccountFiles((file) => {
      read.push(file);
      const text = files[file];
      if (text === undefined) throw new Error(`no ${file}`);
      return text;
    });
    const yaml = `
      processes:
        - { name: a, role: init, command: a, user: alice }
        - { name: b, role: init, command: b, user: "alice:staff" }
        - { name: job, role: app, command: job, user: nobody }
    `;
    const load = () => loadPlan({ cli: EMPTY_CLI_INPUT, configFile: FILE, readFile: () => dedent(yaml), accounts });
    expect(() => load()).toThrow('no user "nobody" in /etc/passwd');
    // Each file once, however many names.
    expect(read.sort()).toEqual(['/etc/group', '/etc/passwd']);
    files['/etc/passwd'] += 'nobody:x:65534:65534::/nonexistent:/bin/false\n';
    const [a, b, job] = loadPlan({
      cli: EMPTY_CLI_INPUT,
      configFile: FILE,
      readFile: () => dedent(yaml),
      accounts: readAccountFiles((file) => files[file]!),
    }).processes;
    expect(a!.user).toEqual({ uid: 1234, gid: 2345, home: '/home/alice' });
    expect(b!.user).toEqual({ uid: 1234, gid: 50, home: '/home/alice' });
    expect(job!.user).toEqual({ uid: 65534, gid: 65534, home: '/nonexistent' });
  });

  it('reads only well-formed lines of the account files: a comment, an empty name or a non-numeric id is no account', () => {
    const accounts = readAccountFiles((file) => {
      if (file !== '/etc/passwd') throw new Error(`no ${file}`);
      return [
        'root:x:0:0:root:/root:/bin/sh',
        ':x:1234:1234::/home/ghost:/bin/sh',
        '#comment:x:1235:1235::/home/comment:/bin/sh',
        'odd:x:x5:5::/home/odd:/bin/sh',
        'odder:x:5x:5::/home/odder:/bin/sh',
        'nogid:x:1300:x5::/home/nogid:/bin/sh',
        'badgid:x:1301:5x::/home/badgid:/bin/sh',
        'nohome:x:1400:1400:::/bin/sh',
        'short:x:1500:1500',
        '',
      ].join('\n');
    });
    const users = (...names: string[]) => names.map((name) => parseUser(name, accounts));
    expect(users('1234', '1235', 'nogid', 'badgid', 'nohome', 'short')).toEqual([
      { ok: true, value: { uid: 1234, gid: 0, home: '/' } },
      { ok: true, value: { uid: 1235, gid: 0, home: '/' } },
      { ok: true, value: { uid: 1300, gid: 0, home: '/home/nogid' } },
      { ok: true, value: { uid: 1301, gid: 0, home: '/home/badgid' } },
      { ok: true, value: { uid: 1400, gid: 1400, home: '/' } },
      { ok: true, value: { uid: 1500, gid: 1500, home: '/' } },
    ]);
    expect(users('odd', 'odder').map((result) => (result.ok ? result.value : result.message))).toEqual([
      'no user "odd" in /etc/passwd',
      'no user "odder" in /etc/passwd',
    ]);
  });

  it('takes numbers but no names when /etc/passwd and /etc/group cannot be read, as in a scratch image', () => {
    const accounts = readAccountFiles((file) => {
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${file}'`), { code: 'ENOENT' });
    });
    expect(parseUser('1000', accounts)).toEqual({ ok: true, value: { uid: 1000, gid: 0, home: '/' } });
    expect(parseUser('1000:2000', accounts)).toEqual({ ok: true, value: { uid: 1000, gid: 2000, home: '/' } });
    expect(parseGroup('2000', accounts)).toEqual({ ok: true, value: 2000 });
    expect(parseUser('app:app', accounts)).toEqual({
      ok: false,
      message:
        'no user "app": /etc/passwd cannot be read; without it give a numeric uid; no group "app": /etc/group cannot be read; without it give a numeric gid',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { load, problemsOf } from '../../test/support/config.ts';
import { TEST_ISTIO_EXTERNAL } from '../../test/support/test-plan.ts';
import type { ProcessSpec } from '../plan/plan.ts';
import { PRESETS } from '../plan/presets.ts';
import { parseExternalSpec } from './external.ts';

// role external: a preset or a matcher, readiness merged with the preset's
// field by field, the stop endpoint, and the fields only processes that
// sidecar-init starts have refused.

const externalOf = (processes: readonly ProcessSpec[], name = 'mesh') => processes.find((spec) => spec.name === name);

describe('an external from the file', () => {
  it('takes match, readiness and stop from its preset; its own readiness fields override one by one', () => {
    const plan = load({
      yaml: `
        processes:
          - name: mesh
            role: external
            preset: istio
            readiness: { deadline: 2s }
          - name: job
            role: app
            command: ./job
      `,
    });
    const mesh = externalOf(plan.processes);
    // The lifecycle tests' Istio fixture is what the preset gives.
    expect(mesh?.external).toEqual(TEST_ISTIO_EXTERNAL);
    expect(mesh?.readiness).toMatchObject({
      probe: { kind: 'http', url: 'http://127.0.0.1:15021/healthz/ready' },
      deadlineMs: 2_000,
      periodMs: 100,
    });
    // It keeps its place in the order: the app waits for it.
    expect(plan.processes.at(-1)?.after).toEqual(['mesh']);
  });

  it('loads every preset, its cmdline compiled for the linear-time engine as a written one is', () => {
    for (const preset of Object.values(PRESETS)) {
      const mesh = externalOf(
        load({ cli: { processes: [{ flag: '--external', value: `mesh=${preset.name}` }], app: ['./job'] } }).processes,
      );
      expect(mesh?.external?.preset).toBe(preset.name);
      expect(mesh?.external?.match.comm).toBe(preset.match.comm);
      expect(mesh?.external?.match.cmdline?.source).toBe(preset.match.cmdline);
      expect(mesh?.readiness?.probe).toMatchObject({ kind: 'http', url: preset.ready });
    }
  });

  it('without a preset or probe it is ready once a matching process exists; stop, optional and stopOnFailure as written', () => {
    const plan = load({
      yaml: `
        processes:
          - name: mesh
            role: external
            match: { comm: envoy, uid: 1337 }
            stop: { http: { url: "http://127.0.0.1:15000/quitquitquit", method: put }, signal: SIGINT }
            optional: true
            stopOnFailure: false
          - name: job
            role: app
            command: ./job
      `,
    });
    const mesh = externalOf(plan.processes);
    expect(mesh?.readiness?.probe).toEqual({ kind: 'process', match: { comm: 'envoy', uid: 1337, maxMatches: 1 } });
    expect(mesh?.external).toMatchObject({
      stop: { kind: 'stop', http: { url: 'http://127.0.0.1:15000/quitquitquit', method: 'PUT' }, signal: 'SIGINT' },
      optional: true,
      stopOnFailure: false,
    });
  });

  it('refuses what only processes sidecar-init starts have, and an external it cannot find', () => {
    expect(
      problemsOf({
        yaml: `
          processes:
            - name: mesh
              role: external
              command: envoy
              restart: always
            - name: other
              role: external
              preset: istioo
            - name: third
              role: external
              match: { cmdline: "(" }
            - name: job
              role: app
              command: ./job
        `,
      }),
    ).toEqual([
      'demo.yaml:2:5 processes[0]: an external needs a preset, a match or announced: how to find its process, e.g. preset: istio, match: { comm: envoy } or announced: /handoff/proxy',
      'demo.yaml:4:5 processes[0].command: only processes sidecar-init starts have command; this process has role external',
      'demo.yaml:5:5 processes[0].restart: only processes sidecar-init starts have restart; this process has role external',
      'demo.yaml:8:5 processes[1].preset: "istioo" is not accepted (did you mean istio?); use istio, linkerd, envoy, cloud-sql-proxy, alloydb-auth-proxy, dapr, consul-dataplane, otel-collector',
      'demo.yaml:11:14 processes[2].match.cmdline: Invalid regular expression: /(/: Unterminated group',
    ]);
  });
});

describe('an external’s match', () => {
  it('compiles cmdline once, for the linear-time engine, and refuses what that engine cannot run, saying why', () => {
    const plan = load({
      yaml: `
        processes:
          - name: mesh
            role: external
            match: { cmdline: "^(a+)+$", maxMatches: 2 }
            allowHost: true
          - name: job
            role: app
            command: ./job
      `,
    });
    const match = externalOf(plan.processes)?.external?.match;
    expect(match?.cmdline?.source).toBe('^(a+)+$');
    expect(match?.cmdline?.regex.flags).toContain('l');
    // On the backtracking engine this one test would not end; here it answers at once.
    expect(match?.cmdline?.regex.test(`${'a'.repeat(40)}!`)).toBe(false);
    expect(match?.maxMatches).toBe(2);
    expect(externalOf(plan.processes)?.external?.allowHost).toBe(true);
    expect(
      problemsOf({
        yaml: `
          processes:
            - name: mesh
              role: external
              match: { cmdline: '(a)\\1', maxMatches: 0 }
            - name: job
              role: app
              command: ./job
        `,
        cli: { processes: [{ flag: '--external', value: 'proxy=cmdline:x(?=y)' }] },
      }),
    ).toEqual([
      expect.stringMatching(
        /^demo\.yaml:4:14 processes\[0\]\.match\.cmdline: "\(a\)\\\\1" uses a backreference .*cannot be matched in linear time/,
      ),
      'demo.yaml:4:32 processes[0].match.maxMatches: 0 is not a number of matches; use a whole number of 1 or more',
      expect.stringMatching(/^--external proxy=cmdline:x\(\?=y\): "x\(\?=y\)" uses a lookahead/),
    ]);
  });
});

describe('an external from the command line', () => {
  it('--external NAME=PRESET or NAME=MATCHER keeps its place among --init and --sidecar; --ready and --quit apply to it', () => {
    const plan = load({
      cli: {
        processes: [
          { flag: '--external', value: 'mesh=linkerd' },
          { flag: '--init', value: 'migrate=./migrate' },
          { flag: '--external', value: 'db=comm:cloud-sql-proxy' },
        ],
        ready: ['db=http://127.0.0.1:9090/startup'],
        quit: ['db=http://127.0.0.1:9091/quitquitquit'],
        app: ['./job'],
      },
    });
    expect(plan.processes.map((spec) => `${spec.role} ${spec.name}`)).toEqual(['external mesh', 'init migrate', 'external db', 'app app']);
    expect(externalOf(plan.processes)?.external).toMatchObject({
      match: { cmdline: { source: 'linkerd2-proxy' } },
      notFoundHint: expect.stringContaining('config.linkerd.io/proxy-admin-shutdown: enabled'),
    });
    const db = externalOf(plan.processes, 'db');
    expect(db?.readiness?.probe).toMatchObject({ kind: 'http', url: 'http://127.0.0.1:9090/startup' });
    expect(db?.external?.stop).toEqual({
      kind: 'stop',
      http: { url: 'http://127.0.0.1:9091/quitquitquit', method: 'POST' },
      signal: undefined,
    });
  });

  it('reports a bad spec, a --quit for something that is not an external, and --restart on an external', () => {
    expect(
      problemsOf({
        cli: {
          processes: [
            { flag: '--external', value: 'mesh=envoyy' },
            { flag: '--external', value: 'db=uid:x' },
            { flag: '--external', value: 'proxy=comm:envoy' },
            { flag: '--sidecar', value: 'log=./ship' },
          ],
          quit: ['log=http://127.0.0.1:1/quit'],
          restart: ['proxy=always'],
          app: ['./job'],
        },
      }),
    ).toEqual([
      expect.stringMatching(
        /^--external mesh=envoyy: "envoyy" is neither a preset nor a matcher \(did you mean envoy\?\); use a preset \(istio, /,
      ),
      '--external db=uid:x: "x" is not a UID; use a whole number, e.g. uid:1337',
      '--quit log=http://127.0.0.1:1/quit: "log" is a sidecar; --quit applies only to externals',
      '--restart proxy=always: "proxy" is an external, a process sidecar-init never starts; --restart applies to the processes it starts',
    ]);
  });
});

describe('an external’s fields, one by one', () => {
  it('refuses a comm that no process name can be, and a match that gives nothing to find it by', () => {
    expect(
      problemsOf({
        yaml: `
          processes:
            - { name: a, role: external, match: { comm: "" } }
            - { name: b, role: external, match: { comm: "sbin/envoy" } }
            - { name: c, role: external, match: { comm: "env\\0oy" } }
            - { name: d, role: external, match: { maxMatches: 2 } }
            - { name: job, role: app, command: job }
        `,
      }),
    ).toEqual([
      'demo.yaml:2:41 processes[0].match.comm: comm needs a process name, e.g. comm:envoy',
      'demo.yaml:3:41 processes[1].match.comm: "sbin/envoy" cannot be a process name (comm has no "/" or NUL)',
      'demo.yaml:4:41 processes[2].match.comm: "env\\u0000oy" cannot be a process name (comm has no "/" or NUL)',
      'demo.yaml:5:32 processes[3].match: give at least one of comm, cmdline, uid',
    ]);
  });

  it('finds by uid alone, and stops by the preset’s endpoint with the written signal, or not at all', () => {
    const plan = load({
      yaml: `
        processes:
          - { name: mesh, role: external, match: { uid: 1337 } }
          - { name: linkerd, role: external, preset: linkerd, stop: { signal: SIGINT } }
          - { name: kept, role: external, preset: istio, stop: none, optional: true, allowHost: true }
          - { name: job, role: app, command: job }
      `,
    });
    expect(externalOf(plan.processes)).toMatchObject({
      readiness: { probe: { kind: 'process', match: { uid: 1337, maxMatches: 1 } }, deadlineMs: 60_000 },
      external: { preset: undefined, match: { uid: 1337, maxMatches: 1 }, stop: { kind: 'stop', http: undefined, signal: undefined } },
    });
    expect(externalOf(plan.processes, 'linkerd')?.external?.stop).toEqual({
      kind: 'stop',
      http: { url: 'http://127.0.0.1:4191/shutdown', method: 'POST' },
      signal: 'SIGINT',
    });
    expect(externalOf(plan.processes, 'kept')?.external).toMatchObject({
      stop: { kind: 'none' },
      stopOnFailure: true,
      optional: true,
      allowHost: true,
    });
  });
});

describe('parseExternalSpec', () => {
  it('reads a preset, each matcher and announced:FILE, the value after the first colon', () => {
    expect(parseExternalSpec('istio')).toEqual({ ok: true, value: { preset: 'istio' } });
    expect(parseExternalSpec('comm:envoy')).toEqual({ ok: true, value: { match: { comm: 'envoy' } } });
    expect(parseExternalSpec('cmdline:a:b')).toEqual({ ok: true, value: { match: { cmdline: 'a:b' } } });
    expect(parseExternalSpec('uid:0')).toEqual({ ok: true, value: { match: { uid: 0 } } });
    expect(parseExternalSpec('uid:2147483647')).toEqual({ ok: true, value: { match: { uid: 2_147_483_647 } } });
    expect(parseExternalSpec('announced:/handoff/proxy')).toEqual({ ok: true, value: { announced: '/handoff/proxy' } });
  });

  it('takes a uid of digits only, up to the largest uid, and a matcher only by its whole name', () => {
    for (const uid of ['2147483648', '1x', 'x1', '', '-1', '1.5']) {
      expect(parseExternalSpec(`uid:${uid}`)).toEqual({ ok: false, message: `"${uid}" is not a UID; use a whole number, e.g. uid:1337` });
    }
    for (const text of ['comma', 'uid', 'announced', ':envoy']) {
      expect(parseExternalSpec(text)).toEqual({
        ok: false,
        message: expect.stringMatching(new RegExp(`^"${text}" is neither a preset nor a matcher; use a preset \\(istio, `)),
      });
    }
  });
});

describe('an external’s stop endpoint', () => {
  it('is a URL alone or a mapping with a method, POSTed unless it says otherwise', () => {
    const yaml = `
      processes:
        - { name: mesh, role: external, preset: istio, stop: { http: "http://127.0.0.1:1/quit" } }
        - { name: db, role: external, preset: istio, stop: { http: { url: "http://127.0.0.1:2/quit" } } }
        - { name: job, role: app, command: job }
    `;
    expect(load({ yaml }).processes.map((spec) => spec.external?.stop)).toEqual([
      { kind: 'stop', http: { url: 'http://127.0.0.1:1/quit', method: 'POST' }, signal: undefined },
      { kind: 'stop', http: { url: 'http://127.0.0.1:2/quit', method: 'POST' }, signal: undefined },
      undefined,
    ]);
  });

  it('is named a stop endpoint in its problems', () => {
    const yaml = `
      processes:
        - { name: mesh, role: external, preset: istio, stop: { http: { url: "http://127.0.0.1:1/quit", method: fetch } } }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml, cli: { quit: ['mesh=https://127.0.0.1:1/quit'] } })).toEqual([
      expect.stringMatching(/"fetch" is not an HTTP method for a stop endpoint; use /),
      expect.stringMatching(
        /^--quit mesh=https:\/\/127\.0\.0\.1:1\/quit: https stop endpoints are not supported yet; use http:\/\/ \(stop endpoints reach/,
      ),
    ]);
  });
});

import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ONLY, appOnlyWith, load, problemsOf } from '../../test/support/config.ts';

// --announce, --until and the external announced:FILE: containers that
// cannot share a PID namespace, coordinated through files on a shared volume.

describe('announce and until', () => {
  it('come from the file, a flag or a variable, each FILE resolved against where sidecar-init starts', () => {
    expect(load({ yaml: appOnlyWith('announce: /handoff/app') }).announce).toBe('/handoff/app');
    expect(load({ yaml: appOnlyWith('announce: handoff/app') }).announce).toBe(resolve('handoff/app'));
    expect(load({ yaml: appOnlyWith('until: /handoff/proxy') }).until).toEqual({ file: '/handoff/proxy', state: 'exited' });
    expect(load({ yaml: appOnlyWith('until: /handoff/proxy=ready') }).until).toEqual({ file: '/handoff/proxy', state: 'ready' });
    expect(load({ yaml: appOnlyWith('until: { file: "/handoff/a=b", state: stopping }') }).until).toEqual({
      file: '/handoff/a=b',
      state: 'stopping',
    });
    expect(load({ yaml: appOnlyWith('until: { file: proxy }') }).until).toEqual({ file: resolve('proxy'), state: 'exited' });
    // The flag over the file.
    const plan = load({ yaml: appOnlyWith('until: /handoff/proxy'), cli: { until: '/other/proxy=starting', announce: '/handoff/x' } });
    expect(plan.until).toEqual({ file: '/other/proxy', state: 'starting' });
    expect(plan.announce).toBe('/handoff/x');
    // Neither: no coordination at all.
    expect(load({ yaml: APP_ONLY })).toMatchObject({ announce: undefined, until: undefined });
  });

  it('refuse a state that is none of the announced states, an empty file and a directory, naming the field', () => {
    expect(
      problemsOf({
        yaml: `
          until: /handoff/proxy=done
          announce: ""
          processes:
            - name: job
              role: app
              command: ./job
        `,
      }),
    ).toEqual([
      'demo.yaml:1:1 until: "done" is not an announced state; use starting, ready, stopping or exited (after the last "=" of FILE=STATE)',
      'demo.yaml:2:1 announce: needs a file path, e.g. /handoff/app (a volume the other containers mount too)',
    ]);
    expect(problemsOf({ yaml: appOnlyWith('until: { file: /handoff/proxy, state: up }') })).toEqual([
      'demo.yaml:1:32 until.state: "up" is not an announced state; use starting, ready, stopping or exited',
    ]);
    expect(problemsOf({ yaml: APP_ONLY, cli: { announce: '/handoff/', until: '/handoff/=ready' } })).toEqual([
      '--announce /handoff/: "/handoff/" names a directory; give the file in it, e.g. /handoff/app',
      '--until /handoff/=ready: "/handoff/" names a directory; give the file in it, e.g. /handoff/app',
    ]);
    // A state with no file before it, and a NUL byte, which no path can hold.
    expect(problemsOf({ yaml: APP_ONLY, cli: { announce: '/handoff/a\0b', until: '=ready' } })).toEqual([
      '--announce /handoff/a\x00b: "/handoff/a\\u0000b" cannot be a file path (it has a NUL byte)',
      '--until =ready: needs a file path, e.g. /handoff/app (a volume the other containers mount too)',
    ]);
  });
});

describe('an external announced:FILE', () => {
  it('is ready while FILE says ready (unless it has its own probe), and is found by nothing else', () => {
    const plan = load({
      yaml: `
        processes:
          - name: proxy
            role: external
            announced: handoff/proxy
          - name: db
            role: external
            announced: /handoff/db
            readiness: { probe: "tcp://127.0.0.1:5432", deadline: 5s }
            stop: none
          - name: job
            role: app
            command: ./job
      `,
    });
    const [proxy, db] = plan.processes;
    expect(proxy?.external).toMatchObject({ announced: resolve('handoff/proxy'), preset: undefined, allowHost: false });
    expect(proxy?.external?.stop).toEqual({ kind: 'stop', http: undefined, signal: undefined });
    expect(proxy?.readiness?.probe).toEqual({ kind: 'announced', file: resolve('handoff/proxy') });
    expect(db?.readiness).toMatchObject({ probe: { kind: 'tcp', port: 5432 }, deadlineMs: 5_000 });
    expect(db?.external).toMatchObject({ announced: '/handoff/db', stop: { kind: 'none' } });
  });

  it('comes from --external NAME=announced:FILE, keeping its place; --ready still applies', () => {
    const plan = load({
      cli: {
        processes: [{ flag: '--external', value: 'proxy=announced:/handoff/proxy' }],
        ready: ['proxy=file:/handoff/proxy-up'],
        app: ['./job'],
      },
    });
    expect(plan.processes.map((spec) => `${spec.role} ${spec.name}`)).toEqual(['external proxy', 'app app']);
    expect(plan.processes[0]?.external?.announced).toBe('/handoff/proxy');
    expect(plan.processes[0]?.readiness?.probe).toEqual({ kind: 'file', path: '/handoff/proxy-up' });
  });

  it('is instead of preset, match and allowHost, is never called or signalled, and needs a file', () => {
    expect(
      problemsOf({
        yaml: `
          processes:
            - name: proxy
              role: external
              announced: /handoff/proxy
              match: { comm: envoy, maxMatches: 2 }
              allowHost: true
              stop: { signal: SIGINT }
            - name: job
              role: app
              command: ./job
        `,
        cli: {
          processes: [
            { flag: '--external', value: 'other=announced:' },
            { flag: '--external', value: 'third=announced:/handoff/third' },
          ],
          quit: ['third=http://127.0.0.1:15000/quitquitquit'],
        },
      }),
    ).toEqual([
      expect.stringMatching(
        /^demo\.yaml:5:5 processes\[0\]\.match: announced is instead of match and allowHost: .* remove match and allowHost$/,
      ),
      expect.stringMatching(/^demo\.yaml:7:5 processes\[0\]\.stop: an announced external is never called or signalled: /),
      '--external other=announced:: needs a file path, e.g. /handoff/app (a volume the other containers mount too)',
      expect.stringMatching(
        /^--quit third=http:\/\/127\.0\.0\.1:15000\/quitquitquit: "third" is announced:\/handoff\/third, another container's sidecar-init: it is never called or signalled/,
      ),
    ]);
  });
});

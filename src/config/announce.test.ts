import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ONLY, appOnlyWith, load, problemsOf } from '../../test/support/config.ts';

// --announce, --until and the external announced:FILE: containers that
// cannot share a PID namespace, coordinated through files on a shared volume.

describe('announce and until', () => {
  it('come from the file, a flag or a variable, each FILE resolved against where sidecar-init starts', () => {
    expect(load({ yaml: appOnlyWith('announce: /shared/app') }).announce).toBe('/shared/app');
    expect(load({ yaml: appOnlyWith('announce: shared/app') }).announce).toBe(resolve('shared/app'));
    expect(load({ yaml: appOnlyWith('until: /shared/proxy') }).until).toEqual({ file: '/shared/proxy', state: 'exited' });
    expect(load({ yaml: appOnlyWith('until: /shared/proxy=ready') }).until).toEqual({ file: '/shared/proxy', state: 'ready' });
    expect(load({ yaml: appOnlyWith('until: { file: "/shared/a=b", state: stopping }') }).until).toEqual({
      file: '/shared/a=b',
      state: 'stopping',
    });
    expect(load({ yaml: appOnlyWith('until: { file: proxy }') }).until).toEqual({ file: resolve('proxy'), state: 'exited' });
    // The flag over the file.
    const plan = load({ yaml: appOnlyWith('until: /shared/proxy'), cli: { until: '/other/proxy=starting', announce: '/shared/x' } });
    expect(plan.until).toEqual({ file: '/other/proxy', state: 'starting' });
    expect(plan.announce).toBe('/shared/x');
    // Neither: no coordination at all.
    expect(load({ yaml: APP_ONLY })).toMatchObject({ announce: undefined, until: undefined });
  });

  it('refuse a state that is none of the announced states, an empty file and a directory, naming the field', () => {
    expect(
      problemsOf({
        yaml: `
          until: /shared/proxy=done
          announce: ""
          processes:
            - name: job
              role: app
              command: ./job
        `,
      }),
    ).toEqual([
      'demo.yaml:1:1 until: "done" is not an announced state; use starting, ready, stopping or exited (after the last "=" of FILE=STATE)',
      'demo.yaml:2:1 announce: needs a file path, e.g. /shared/app (a volume the other containers mount too)',
    ]);
    expect(problemsOf({ yaml: appOnlyWith('until: { file: /shared/proxy, state: up }') })).toEqual([
      'demo.yaml:1:31 until.state: "up" is not an announced state; use starting, ready, stopping or exited',
    ]);
    expect(problemsOf({ yaml: APP_ONLY, cli: { announce: '/shared/', until: '/shared/=ready' } })).toEqual([
      '--announce /shared/: "/shared/" names a directory; give the file in it, e.g. /shared/app',
      '--until /shared/=ready: "/shared/" names a directory; give the file in it, e.g. /shared/app',
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
            announced: shared/proxy
          - name: db
            role: external
            announced: /shared/db
            readiness: { probe: "tcp://127.0.0.1:5432", deadline: 5s }
            stop: none
          - name: job
            role: app
            command: ./job
      `,
    });
    const [proxy, db] = plan.processes;
    expect(proxy?.external).toMatchObject({ announced: resolve('shared/proxy'), preset: undefined, allowHost: false });
    expect(proxy?.external?.stop).toEqual({ kind: 'stop', http: undefined, signal: undefined });
    expect(proxy?.readiness?.probe).toEqual({ kind: 'announced', file: resolve('shared/proxy') });
    expect(db?.readiness).toMatchObject({ probe: { kind: 'tcp', port: 5432 }, deadlineMs: 5_000 });
    expect(db?.external).toMatchObject({ announced: '/shared/db', stop: { kind: 'none' } });
  });

  it('comes from --external NAME=announced:FILE, keeping its place; --ready still applies', () => {
    const plan = load({
      cli: {
        processes: [{ flag: '--external', value: 'proxy=announced:/shared/proxy' }],
        ready: ['proxy=file:/shared/proxy-up'],
        app: ['./job'],
      },
    });
    expect(plan.processes.map((spec) => `${spec.role} ${spec.name}`)).toEqual(['external proxy', 'app app']);
    expect(plan.processes[0]?.external?.announced).toBe('/shared/proxy');
    expect(plan.processes[0]?.readiness?.probe).toEqual({ kind: 'file', path: '/shared/proxy-up' });
  });

  it('is instead of preset, match and allowHost, is never called or signalled, and needs a file', () => {
    expect(
      problemsOf({
        yaml: `
          processes:
            - name: proxy
              role: external
              announced: /shared/proxy
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
            { flag: '--external', value: 'third=announced:/shared/third' },
          ],
          quit: ['third=http://127.0.0.1:15000/quitquitquit'],
        },
      }),
    ).toEqual([
      expect.stringMatching(
        /^demo\.yaml:5:5 processes\[0\]\.match: announced is instead of match and allowHost: .* remove match and allowHost$/,
      ),
      expect.stringMatching(/^demo\.yaml:7:5 processes\[0\]\.stop: an announced external is never called or signalled: /),
      '--external other=announced:: needs a file path, e.g. /shared/app (a volume the other containers mount too)',
      expect.stringMatching(
        /^--quit third=http:\/\/127\.0\.0\.1:15000\/quitquitquit: "third" is announced:\/shared\/third, another container's sidecar-init: it is never called or signalled/,
      ),
    ]);
  });
});

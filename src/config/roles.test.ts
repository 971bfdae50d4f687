import { describe, expect, it } from 'vitest';
import { problemsOf } from '../../test/support/config.ts';

// What a process's role decides beyond its fields' own checks: a role that is
// missing, an external that cannot be found, an announced external that asks
// for what only a found one has.

describe('the rules of each role', () => {
  it('names the missing role, and each field or stop an announced external does not take', () => {
    const yaml = `
      processes:
        - { name: a, role: external, announced: /h/a, preset: istio }
        - { name: b, role: external, announced: /h/b, stop: { http: "http://127.0.0.1:1/quit" } }
        - { name: c, role: external, announced: /h/c, stop: { signal: SIGTERM } }
        - { name: d, role: external, announced: /h/d, stop: {} }
        - { name: e, role: external, announced: /h/e, stop: none }
        - { name: g, command: g }
        - { name: job, role: app, command: job }
    `;
    const stop =
      'an announced external is never called or signalled: at teardown it is waited for until its file says exited; give stop: none to not wait, or leave stop out';
    expect(problemsOf({ yaml })).toEqual([
      "demo.yaml:2:49 processes[0].preset: announced is instead of preset: another container's sidecar-init is known by its file alone, never looked for in /proc; remove preset",
      `demo.yaml:3:49 processes[1].stop: ${stop}`,
      `demo.yaml:4:49 processes[2].stop: ${stop}`,
      'demo.yaml:7:5 processes[5].role: is required; use init, sidecar, app, external',
    ]);
  });

  it("checks an external's way to be found even when its fields have problems of their own", () => {
    const yaml = `
      processes:
        - { name: f, role: external, grace: 1s, optional: maybe }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:5 processes[0]: an external needs a preset, a match or announced: how to find its process, e.g. preset: istio, match: { comm: envoy } or announced: /handoff/proxy',
      'demo.yaml:2:32 processes[0].grace: only processes sidecar-init starts have grace; this process has role external',
      'demo.yaml:2:43 processes[0].optional: expected a boolean, got "maybe"',
    ]);
  });
});

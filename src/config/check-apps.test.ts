import { describe, expect, it } from 'vitest';
import { problemsOf } from './test-support.ts';

describe('the app', () => {
  it('is required: a file without one, and nothing after --, is reported at processes', () => {
    const yaml = `
      grace: 5s
      processes:
        - { name: proxy, role: sidecar, command: envoy }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:1 processes: no app to run; give it after the options (sidecar-init [OPTIONS] -- APP [ARGS...]) or as a process with role: app',
    ]);
  });

  it('is required without a file too', () => {
    expect(problemsOf({ cli: { processes: [{ flag: '--sidecar', value: 'proxy=envoy' }] } })).toEqual([
      'command line: no app to run; give it after the options (sidecar-init [OPTIONS] -- APP [ARGS...]) or as a process with role: app',
    ]);
  });

  it('is one per file: each extra app is reported at its role, pointing at the first', () => {
    const yaml = `
      processes:
        - { name: a, role: app, command: a }
        - { name: b, role: app, command: b }
        - { name: c, role: app, command: c }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:3:16 processes[1].role: a second app; only one process can have role app (see demo.yaml:2:16 processes[0].role)',
      'demo.yaml:4:16 processes[2].role: a second app; only one process can have role app (see demo.yaml:2:16 processes[0].role)',
    ]);
  });

  it('is one per file even when the app after -- replaces it', () => {
    const yaml = `
      processes:
        - { name: a, role: app, command: a }
        - { name: b, role: app, command: b }
    `;
    expect(problemsOf({ yaml, cli: { app: ['job'] } })).toEqual([
      'demo.yaml:3:16 processes[1].role: a second app; only one process can have role app (see demo.yaml:2:16 processes[0].role)',
    ]);
  });

  it('is not reported missing when an entry whose role is unreadable may be it', () => {
    const yaml = `
      processes:
        - { name: job, role: ap, command: job }
    `;
    expect(problemsOf({ yaml })).toEqual(['demo.yaml:2:18 processes[0].role: "ap" is not accepted; use init, sidecar, app']);
  });

  it('given as operands must have a program name', () => {
    expect(problemsOf({ cli: { app: ['', 'x'] } })).toEqual([
      '--  x: the program name is empty; give the program and its arguments, e.g. "envoy -c /etc/envoy.yaml"',
    ]);
  });
});

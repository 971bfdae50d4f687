import { describe, expect, it } from 'vitest';
import { load, problemsOf } from '../../test/support/config.ts';
import { EXTERNAL_STARTED_ONLY_PROBE } from './probe.ts';
import { splitAssignment } from './target-flags.ts';

// The flags that set one field of a named process (--ready, --quit, --restart,
// --stop-signal, --user): which process each names, what it says when the name
// is wrong, and how its value goes over the file's.

describe('splitAssignment', () => {
  it('splits at the first "=", an empty name included', () => {
    expect(splitAssignment('a=b=c')).toEqual(['a', 'b=c']);
    expect(splitAssignment('=INT')).toEqual(['', 'INT']);
    expect(splitAssignment('INT')).toBeUndefined();
  });
});

describe('the process a target flag names', () => {
  it('is the first of the entries with that name, where names repeat', () => {
    const yaml = `
      processes:
        - { name: proxy, role: sidecar, command: envoy }
        - { name: proxy, role: init, command: setup }
        - { name: job, role: app, command: job }
    `;
    // Only the repeated name is reported: --ready names the sidecar, the first.
    expect(problemsOf({ yaml, cli: { ready: ['proxy=tcp://127.0.0.1:1'] } })).toEqual([
      'demo.yaml:3:7 processes[1].name: "proxy" is already the name of another process (see demo.yaml:2:7 processes[0].name)',
    ]);
  });

  it('is looked for among the entries that can be read: one without a name is not a candidate, one without a role is for every process', () => {
    const yaml = `
      processes:
        - { name: 5, role: sidecar, command: envoy }
        - { name: norole, command: x }
        - { name: proxy, role: sidecar, command: envoy }
        - { name: job, role: app, command: job }
    `;
    const problems = problemsOf({ yaml, cli: { ready: ['nope=tcp://127.0.0.1:1', 'norole=tcp://127.0.0.1:1'], stopSignal: ['nope=INT'] } });
    expect(problems.filter((problem) => problem.startsWith('--'))).toEqual([
      '--ready nope=tcp://127.0.0.1:1: no process is named "nope"; the sidecars and externals are proxy',
      // Its missing role is reported at the entry; the flag is not refused for a role it does not have.
      '--stop-signal nope=INT: no process is named "nope"; the processes are norole, proxy, job',
    ]);
  });

  it('when there is none, says there are no processes at all, or none of the roles that have the field', () => {
    expect(problemsOf({ cli: { stopSignal: ['=INT'], restart: ['x=never'] } })).toEqual([
      'command line: no app to run; give it after the options (sidecar-init [OPTIONS] -- APP [ARGS...]) or as a process with role: app',
      '--restart x=never: no process is named "x"; there are no processes',
      '--stop-signal =INT: no process is named ""; there are no processes',
    ]);
  });

  it('names ten candidates, and no "0 more" when there are exactly ten', () => {
    const processes = Array.from({ length: 9 }, (_, index) => ({ flag: '--init' as const, value: `i${index}=setup` }));
    expect(problemsOf({ cli: { processes, restart: ['nope=never'], app: ['job'] } })).toEqual([
      '--restart nope=never: no process is named "nope"; the processes are i0, i1, i2, i3, i4, i5, i6, i7, i8, app',
    ]);
  });
});

describe('a target flag’s value', () => {
  it('--ready refuses for an external a probe only a started process can pass, and takes it for a sidecar', () => {
    const cli = {
      processes: [
        { flag: '--external', value: 'mesh=istio' },
        { flag: '--sidecar', value: 'proxy=envoy' },
      ] as const,
      app: ['job'],
    };
    expect(problemsOf({ cli: { ...cli, ready: ['mesh=notify', 'proxy=notify'] } })).toEqual([
      `--ready mesh=notify: ${EXTERNAL_STARTED_ONLY_PROBE}`,
    ]);
    expect(
      load({ cli: { ...cli, ready: ['proxy=notify', 'mesh=deadline=1s'] } }).processes.map((spec) => spec.readiness?.probe.kind),
    ).toEqual(['http', 'notify', undefined]);
  });

  it('--quit replaces the endpoint and keeps the signal the file gives, or gives none over stop: none', () => {
    const yaml = `
      processes:
        - { name: mesh, role: external, preset: istio, stop: { http: "http://127.0.0.1:1/quit", signal: SIGINT } }
        - { name: kept, role: external, preset: istio, stop: none }
        - { name: job, role: app, command: job }
    `;
    const plan = load({ yaml, cli: { quit: ['mesh=http://127.0.0.1:2/quit', 'kept=http://127.0.0.1:3/quit'] } });
    expect(plan.processes.map((spec) => spec.external?.stop)).toEqual([
      { kind: 'stop', http: { url: 'http://127.0.0.1:2/quit', method: 'POST' }, signal: 'SIGINT' },
      { kind: 'stop', http: { url: 'http://127.0.0.1:3/quit', method: 'POST' }, signal: undefined },
      undefined,
    ]);
  });

  it('--success-code is the app’s alone', () => {
    const plan = load({ cli: { processes: [{ flag: '--sidecar', value: 'proxy=envoy' }], successCode: ['143'], app: ['job'] } });
    expect(plan.processes.map((spec) => [spec.name, spec.successCodes])).toEqual([
      ['proxy', []],
      ['app', [143]],
    ]);
  });

  it('--stop-signal and --user set their field of the process named, and no other', () => {
    const cli = {
      processes: [{ flag: '--sidecar', value: 'proxy=envoy' }] as const,
      stopSignal: ['proxy=QUIT'],
      user: ['app=1000:1000'],
      app: ['job'],
    };
    const [proxy, app] = load({ cli }).processes;
    expect([proxy?.stopSignal, proxy?.user]).toEqual(['SIGQUIT', undefined]);
    expect([app?.stopSignal, app?.user]).toMatchObject([undefined, { uid: 1000, gid: 1000 }]);
  });
});

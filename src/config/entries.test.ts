import { describe, expect, it } from 'vitest';
import { load, problemsOf } from '../../test/support/config.ts';

describe('process names', () => {
  it('must be DNS labels, in the file and in flags', () => {
    const yaml = `
      processes:
        - { name: Net_Setup, role: init, command: x }
        - { name: job, role: app, command: job }
    `;
    expect(problemsOf({ yaml, cli: { processes: [{ flag: '--sidecar', value: 'my.proxy=envoy' }] } })).toEqual([
      'demo.yaml:2:7 processes[0].name: "Net_Setup" is not a valid name; use lower-case letters, digits and "-", starting and ending with a letter or digit (a DNS label, like a Kubernetes container name)',
      '--sidecar my.proxy=envoy: "my.proxy" is not a valid name; use lower-case letters, digits and "-", starting and ending with a letter or digit (a DNS label, like a Kubernetes container name)',
    ]);
  });

  it('must be unique across the file and the flags, each duplicate pointing at the first use', () => {
    const yaml = `
      processes:
        - name: proxy
          role: sidecar
          command: envoy
        - name: proxy
          role: init
          command: setup
        - { name: job, role: app, command: job }
    `;
    const cli = {
      processes: [
        { flag: '--init', value: 'proxy=x' },
        { flag: '--sidecar', value: 'log=a' },
        { flag: '--sidecar', value: 'log=b' },
      ] as const,
    };
    expect(problemsOf({ yaml, cli })).toEqual([
      'demo.yaml:5:5 processes[1].name: "proxy" is already the name of another process (see demo.yaml:2:5 processes[0].name)',
      '--init proxy=x: "proxy" is already the name of another process (see demo.yaml:2:5 processes[0].name)',
      '--sidecar log=b: "log" is already the name of another process (see --sidecar log=a)',
    ]);
  });

  it('counts the app given after -- as named "app" when the file has none to replace', () => {
    const cli = { processes: [{ flag: '--sidecar', value: 'app=envoy' }] as const, app: ['python', 'job.py'] };
    expect(problemsOf({ cli })).toEqual(['-- python job.py: "app" is already the name of another process (see --sidecar app=envoy)']);
  });

  it('checks the name of a file app that the app after -- replaces, which then is named "app"', () => {
    const yaml = `
      processes:
        - { name: Job, role: app, command: job }
    `;
    expect(problemsOf({ yaml, cli: { app: ['python'] } })).toEqual([
      'demo.yaml:2:7 processes[0].name: "Job" is not a valid name; use lower-case letters, digits and "-", starting and ending with a letter or digit (a DNS label, like a Kubernetes container name)',
    ]);
    expect(load({ yaml: yaml.replace('Job', 'job'), cli: { app: ['python'] } }).processes.map((process) => process.name)).toEqual(['job']);
  });
});

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
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:18 processes[0].role: "ap" is not accepted (did you mean app?); use init, sidecar, app, external',
    ]);
  });

  it('given as operands must have a program name', () => {
    expect(problemsOf({ cli: { app: ['', 'x'] } })).toEqual([
      '--  x: the program name is empty; give the program and its arguments, e.g. "envoy -c /etc/envoy.yaml"',
    ]);
  });
});

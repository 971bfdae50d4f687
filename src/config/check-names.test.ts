import { describe, expect, it } from 'vitest';
import { load, problemsOf } from './test-support.ts';

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

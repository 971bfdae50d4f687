import { describe, expect, it } from 'vitest';
import { load, problemsOf } from './test-support.ts';

const yaml = `
  processes:
    - { name: setup, role: init, command: setup }
    - { name: proxy, role: sidecar, command: envoy }
    - { name: job, role: app, command: job }
`;

describe('--ready', () => {
  it('applies to sidecars from the file and from flags', () => {
    const plan = load({
      yaml,
      cli: { processes: [{ flag: '--sidecar', value: 'db=postgres' }], ready: ['proxy=tcp://127.0.0.1:15000', 'db=exec:pg_isready'] },
    });
    expect(plan.processes.map((process) => process.readiness?.probe)).toEqual([
      undefined,
      { kind: 'tcp', host: '127.0.0.1', port: 15000 },
      { kind: 'exec', command: ['pg_isready'] },
      undefined,
    ]);
  });

  it('reports a name that is not a sidecar, or unknown, or given twice', () => {
    const cli = {
      ready: ['setup=tcp://127.0.0.1:1', 'job=tcp://127.0.0.1:1', 'proxi=tcp://127.0.0.1:1', 'proxy=tcp://127.0.0.1:1', 'proxy=exec:true'],
    };
    expect(problemsOf({ yaml, cli })).toEqual([
      '--ready setup=tcp://127.0.0.1:1: "setup" is an init step; --ready applies only to sidecars',
      '--ready job=tcp://127.0.0.1:1: "job" is the app; --ready applies only to sidecars',
      '--ready proxi=tcp://127.0.0.1:1: no process is named "proxi"; the sidecars are proxy',
      '--ready proxy=exec:true: --ready was already given for "proxy" (see --ready proxy=tcp://127.0.0.1:1)',
    ]);
  });

  it('reports the probe and the NAME=PROBE form with the flag and its value', () => {
    const cli = { ready: ['proxy=tcp://x:', 'proxy'], app: ['job'] };
    expect(problemsOf({ cli })).toEqual([
      '--ready proxy=tcp://x:: "tcp://x:" has no port; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000',
      '--ready proxy: expected NAME=PROBE, e.g. --ready proxy=http://127.0.0.1:15021/healthz/ready',
      '--ready proxy=tcp://x:: no process is named "proxy"; there are no sidecars',
    ]);
  });
});

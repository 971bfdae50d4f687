import { describe, expect, it } from 'vitest';
import { load, problemsOf } from '../../test/support/config.ts';

// --ready NAME=PROBE[,KEY=DURATION]...: where the probe ends and its options begin.

const YAML = `
  processes:
    - name: proxy
      role: sidecar
      command: envoy
      readiness: { probe: "tcp://127.0.0.1:15000", deadline: 5s }
    - { name: job, role: app, command: job }
`;

function readinessWith(ready: string) {
  return load({ yaml: YAML, cli: { ready: [`proxy=${ready}`] } }).processes[0]!.readiness;
}

describe('--ready', () => {
  it('reads options only from trailing ,KEY=VALUE pieces: a word=value inside a probe, or a word that is no timing, stays the probe', () => {
    expect(readinessWith('exec:check deadline=2m')).toMatchObject({
      probe: { kind: 'exec', command: ['check', 'deadline=2m'] },
      deadlineMs: 5000,
    });
    expect(readinessWith('exec:check,mode=fast')).toMatchObject({
      probe: { kind: 'exec', command: ['check,mode=fast'] },
      deadlineMs: 5000,
    });
    expect(readinessWith('exec:check,deadline=2m')).toMatchObject({ probe: { kind: 'exec', command: ['check'] }, deadlineMs: 120_000 });
  });

  it("keeps the file's probe for options alone, also after an empty probe", () => {
    expect(readinessWith(',deadline=2m')).toMatchObject({ probe: { kind: 'tcp', host: '127.0.0.1', port: 15000 }, deadlineMs: 120_000 });
  });

  it('refuses an empty probe, and adds how options are written only when a comma may have been meant as one', () => {
    const hint =
      'after the probe, options are ,KEY=DURATION with KEY one of period, timeout, deadline or periodAfterStart, e.g. --ready proxy=tcp://127.0.0.1:15000,deadline=2m,period=500ms';
    const problems = (...ready: string[]) => ready.flatMap((each) => problemsOf({ yaml: YAML, cli: { ready: [`proxy=${each}`] } }));
    expect(problems('', 'tcp://127.0.0.1:15000,foo=2m', 'tcp://x,y,deadline=2m')).toEqual([
      '--ready proxy=: "" is not a probe; use tcp://HOST:PORT, http://HOST:PORT/PATH, grpc://HOST:PORT[/SERVICE], exec:CMD, log:REGEX, file:PATH, notify or fd:N',
      `--ready proxy=tcp://127.0.0.1:15000,foo=2m: port "15000,foo=2m" is not a number from 1 to 65535; ${hint}`,
      '--ready proxy=tcp://x,y,deadline=2m: "tcp://x,y" has no port; use tcp://HOST:PORT, e.g. tcp://127.0.0.1:15000',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_HOOK_TIMEOUT_MS } from './plan.ts';
import { APP_ONLY, appOnlyWith, load, problemsOf } from './test-support.ts';

describe('drain', () => {
  it('is undefined unless given', () => {
    expect(load({ yaml: APP_ONLY }).drain).toBeUndefined();
  });

  it.each([
    ['drain: 5s', { kind: 'delay', ms: 5_000 }],
    ['drain: 0s', { kind: 'delay', ms: 0 }],
    ['drain: { exec: "sleep 5" }', { kind: 'hook', hook: { kind: 'exec', command: ['sleep', '5'], timeoutMs: DEFAULT_HOOK_TIMEOUT_MS } }],
    [
      'drain: { http: { url: "http://127.0.0.1:15000/healthcheck/fail", method: POST }, timeout: 3s }',
      { kind: 'hook', hook: { kind: 'http', url: 'http://127.0.0.1:15000/healthcheck/fail', method: 'POST', timeoutMs: 3_000 } },
    ],
  ])('reads %s from the file', (line, drain) => {
    expect(load({ yaml: appOnlyWith(line) }).drain).toEqual(drain);
  });

  it.each([
    ['5s', { kind: 'delay', ms: 5_000 }],
    ['1m30s', { kind: 'delay', ms: 90_000 }],
    [
      `curl -X POST 'http://127.0.0.1:15000/drain'`,
      {
        kind: 'hook',
        hook: { kind: 'exec', command: ['curl', '-X', 'POST', 'http://127.0.0.1:15000/drain'], timeoutMs: DEFAULT_HOOK_TIMEOUT_MS },
      },
    ],
    ['5x', { kind: 'hook', hook: { kind: 'exec', command: ['5x'], timeoutMs: DEFAULT_HOOK_TIMEOUT_MS } }],
  ])('reads --drain %s as a delay when it is a duration, else as a command', (value, drain) => {
    expect(load({ cli: { drain: value, app: ['job'] } }).drain).toEqual(drain);
  });

  it('from the flag overrides the file', () => {
    expect(load({ yaml: appOnlyWith('drain: { exec: "sleep 5" }'), cli: { drain: '2s' } }).drain).toEqual({ kind: 'delay', ms: 2_000 });
  });

  it('reports a bare number, a string that is no duration, and a bad hook', () => {
    expect(problemsOf({ yaml: appOnlyWith('drain: 5') })).toEqual(['demo.yaml:1:1 drain: 5 has no unit; write e.g. 5s or 5ms']);
    expect(problemsOf({ yaml: appOnlyWith('drain: sleep 5') })).toEqual([
      'demo.yaml:1:1 drain: "sleep 5" is not a duration; use e.g. 500ms, 5s, 1m; to run a command, write drain: {exec: "sleep 5"}',
    ]);
    expect(problemsOf({ yaml: appOnlyWith('drain: { exec: [], timeout: 0s }') })).toEqual([
      'demo.yaml:1:10 drain.exec: is an empty list; give at least 1 item',
      'demo.yaml:1:20 drain.timeout: "0s" is zero; give a duration of at least 1ms',
    ]);
    expect(problemsOf({ yaml: appOnlyWith('drain: [5s]') })).toEqual(['demo.yaml:1:1 drain: expected a string or a mapping, got a list']);
  });

  it('reports a bare number or an empty command given to --drain, with the flag', () => {
    expect(problemsOf({ cli: { drain: '5', app: ['job'] } })).toEqual(['--drain 5: 5 has no unit; write e.g. 5s or 5ms']);
    expect(problemsOf({ cli: { drain: ' ', app: ['job'] } })).toEqual([
      '--drain  : the command is empty; give the program and its arguments, e.g. "envoy -c /etc/envoy.yaml"',
    ]);
  });
});

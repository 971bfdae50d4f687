import { describe, expect, it } from 'vitest';
import { describeExitStatus, type ExitStatus, exitCodeOf, isSuccess, signalExitCode, signalNumber } from './exit-status.ts';

const exited = (code: number): ExitStatus => ({ kind: 'exited', code });
const signaled = (signal: NodeJS.Signals): ExitStatus => ({ kind: 'signaled', signal });
const notFound: ExitStatus = { kind: 'spawn-failed', code: 127, reason: 'no such program: nope' };

describe('exit statuses', () => {
  it('give the code a shell reports: the exit code, 128+N for signal N, 126/127 for a spawn that failed', () => {
    expect(exitCodeOf(exited(0))).toBe(0);
    expect(exitCodeOf(exited(3))).toBe(3);
    expect(exitCodeOf(signaled('SIGTERM'))).toBe(143);
    expect(exitCodeOf(signaled('SIGKILL'))).toBe(137);
    expect(exitCodeOf(notFound)).toBe(127);
    expect(signalExitCode('SIGINT')).toBe(130);
  });

  it('count only an exit with code 0 as success', () => {
    expect(isSuccess(exited(0))).toBe(true);
    expect(isSuccess(exited(1))).toBe(false);
    expect(isSuccess(signaled('SIGTERM'))).toBe(false);
    expect(isSuccess({ kind: 'spawn-failed', code: 126, reason: 'not executable' })).toBe(false);
  });

  it('read in messages as what happened', () => {
    expect(describeExitStatus(exited(3))).toBe('exited with code 3');
    expect(describeExitStatus(signaled('SIGKILL'))).toBe('killed by SIGKILL');
    expect(describeExitStatus(notFound)).toBe('no such program: nope');
  });

  it('refuse a signal name the system does not know, naming it', () => {
    expect(signalNumber('SIGHUP')).toBe(1);
    expect(() => signalNumber('SIGNOPE' as NodeJS.Signals)).toThrow('unknown signal SIGNOPE');
  });
});

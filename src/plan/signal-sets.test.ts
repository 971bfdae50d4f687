import { constants } from 'node:os';
import { describe, expect, it } from 'vitest';
import { FORWARDED_SIGNALS, HANDLED_SIGNALS, isStopSignal, needsContinue, STOP_SIGNALS, signalOfNumber } from './signal-sets.ts';

describe('signal sets', () => {
  it('stop on SIGTERM and SIGINT only', () => {
    expect(STOP_SIGNALS).toEqual(['SIGTERM', 'SIGINT']);
    expect(isStopSignal('SIGTERM')).toBe(true);
    expect(isStopSignal('SIGINT')).toBe(true);
    for (const signal of FORWARDED_SIGNALS) expect(isStopSignal(signal)).toBe(false);
    expect(isStopSignal('SIGKILL')).toBe(false);
  });

  it('pass on every signal the system has but the stop signals and those left out for a reason', () => {
    // Derived from the system's own list, not copied: a signal missing from FORWARDED_SIGNALS would never reach the app (PID 1 has no default actions).
    const leftOut: Record<string, string> = {
      SIGKILL: 'cannot be caught',
      SIGSTOP: 'cannot be caught',
      SIGCHLD: "the reaper's",
      SIGSEGV: 'a synchronous fault: Node handles it',
      SIGBUS: 'a synchronous fault: Node handles it',
      SIGFPE: 'a synchronous fault: Node handles it',
      SIGILL: 'a synchronous fault: Node handles it',
      SIGTRAP: 'a synchronous fault: Node handles it',
      SIGSYS: 'a synchronous fault: Node handles it',
      SIGABRT: "abort(): sidecar-init's own crash",
      SIGIOT: 'the same number as SIGABRT',
      SIGSTKFLT: 'never sent by Linux',
      SIGPIPE: 'Node ignores it',
      SIGPROF: "the profiler's",
      SIGPOLL: 'the same number as SIGIO',
    };
    const expected = Object.keys(constants.signals).filter((name) => !(name in leftOut) && !STOP_SIGNALS.includes(name as NodeJS.Signals));
    expect([...FORWARDED_SIGNALS].sort()).toEqual(expected.sort());
  });

  it('listen for the stop signals and the forwarded ones, each once', () => {
    expect(HANDLED_SIGNALS).toEqual([...STOP_SIGNALS, ...FORWARDED_SIGNALS]);
    expect(new Set(HANDLED_SIGNALS).size).toBe(HANDLED_SIGNALS.length);
  });

  it('follow a signal sent to end a process with SIGCONT, but not SIGKILL or the job-control signals', () => {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGQUIT', 'SIGHUP', 'SIGUSR1'] as const) expect(needsContinue(signal), signal).toBe(true);
    for (const signal of ['SIGKILL', 'SIGSTOP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU', 'SIGCONT'] as const)
      expect(needsContinue(signal), signal).toBe(false);
  });
});

describe('signalOfNumber', () => {
  it('names a number by its first name where two share it, and nothing where Node names none', () => {
    expect(signalOfNumber(15)).toBe('SIGTERM');
    expect(signalOfNumber(constants.signals.SIGIO)).toBe('SIGIO');
    expect(signalOfNumber(constants.signals.SIGABRT)).toBe('SIGABRT');
    expect(signalOfNumber(0)).toBeUndefined();
    expect(signalOfNumber(40)).toBeUndefined();
  });
});

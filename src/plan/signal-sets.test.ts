import { describe, expect, it } from 'vitest';
import { FORWARDED_SIGNALS, HANDLED_SIGNALS, isStopSignal, STOP_SIGNALS } from './signal-sets.ts';

describe('signal sets', () => {
  it('stop on SIGTERM and SIGINT only', () => {
    expect(STOP_SIGNALS).toEqual(['SIGTERM', 'SIGINT']);
    expect(isStopSignal('SIGTERM')).toBe(true);
    expect(isStopSignal('SIGINT')).toBe(true);
    for (const signal of FORWARDED_SIGNALS) expect(isStopSignal(signal)).toBe(false);
    expect(isStopSignal('SIGKILL')).toBe(false);
  });

  it('pass on every catchable signal but the reaper’s, the faults, SIGPIPE, SIGPROF and SIGPOLL', () => {
    // The whole list: a signal missing from it would never reach the app (PID 1 has no default actions).
    expect(FORWARDED_SIGNALS).toEqual([
      'SIGHUP',
      'SIGQUIT',
      'SIGUSR1',
      'SIGUSR2',
      'SIGWINCH',
      'SIGALRM',
      'SIGCONT',
      'SIGTSTP',
      'SIGTTIN',
      'SIGTTOU',
      'SIGURG',
      'SIGVTALRM',
      'SIGXCPU',
      'SIGXFSZ',
      'SIGIO',
      'SIGPWR',
    ]);
  });

  it('listen for the stop signals and the forwarded ones, each once', () => {
    expect(HANDLED_SIGNALS).toEqual([...STOP_SIGNALS, ...FORWARDED_SIGNALS]);
    expect(new Set(HANDLED_SIGNALS).size).toBe(HANDLED_SIGNALS.length);
  });
});

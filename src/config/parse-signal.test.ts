import { describe, expect, it } from 'vitest';
import { parseSignal } from './parse-signal.ts';

describe('parseSignal', () => {
  it.each([
    ['SIGQUIT', 'SIGQUIT'],
    ['quit', 'SIGQUIT'],
    ['Quit', 'SIGQUIT'],
    ['sigint', 'SIGINT'],
    ['TERM', 'SIGTERM'],
    ['KILL', 'SIGKILL'],
    ['SIGWINCH', 'SIGWINCH'],
  ])('reads %j as %s', (text, signal) => {
    expect(parseSignal(text)).toEqual({ ok: true, value: signal });
  });

  it.each(['SIGFOO', 'TERMINATE', '', 'SIG', ' TERM', 'SIGTERM '])('rejects %j as not a signal', (text) => {
    expect(parseSignal(text)).toEqual({
      ok: false,
      message: `${JSON.stringify(text)} is not a signal; use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional)`,
    });
  });

  it('refuses a signal number, which differs between architectures', () => {
    expect(parseSignal('3')).toEqual({ ok: false, message: '3 is a signal number; give the signal by name, e.g. SIGQUIT' });
  });
});

import { describe, expect, it } from 'vitest';
import { CMDLINE_PATTERN, compileLinearPattern, LOG_PATTERN } from './linear-pattern.ts';

const compileLogPattern = (pattern: string) => compileLinearPattern(pattern, LOG_PATTERN);

const messageOf = (pattern: string): string => {
  const compiled = compileLogPattern(pattern);
  if (compiled.ok) throw new Error(`${pattern} compiled`);
  return compiled.message;
};

describe('compileLinearPattern', () => {
  it('matches a catastrophic-backtracking pattern in linear time', () => {
    const compiled = compileLogPattern('^(a+)+$');
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    // With the backtracking engine this one test takes longer than the suite
    // (2^40 paths); the linear engine answers at once. No timing asserted:
    // the test finishing at all is the proof.
    expect(compiled.pattern.regex.test(`${'a'.repeat(40)}!`)).toBe(false);
    expect(compiled.pattern.regex.test('a'.repeat(40))).toBe(true);
    expect(compiled.pattern.regex.flags).toContain('l');
    expect(compiled.pattern.source).toBe('^(a+)+$');
  });

  it('accepts the everyday patterns', () => {
    for (const pattern of ['listening on port \\d+', '^\\s*ready$', '(?<port>\\d{1,5})', 'a*?b', '\\bup\\b', '(?:ok|ready)+']) {
      expect(compileLogPattern(pattern).ok, pattern).toBe(true);
    }
  });

  it('refuses backreferences, lookaheads and large counted repetitions, saying why and how to rewrite', () => {
    expect(messageOf('(a)\\1')).toMatch(/backreference .* cannot be matched in linear time.*match the repeated text itself/);
    expect(messageOf('(?<q>["\'])x\\k<q>')).toMatch(/backreference/);
    expect(messageOf('ready(?= now)')).toMatch(/lookahead .*match the following text itself/);
    expect(messageOf('ready(?!-not)')).toMatch(/lookahead/);
    expect(messageOf('[a-z]{1,64}')).toMatch(/counted repetition above 16 .*use \+ or \* instead/);
    expect(messageOf('a{17}')).toMatch(/counted repetition above 16/);
  });

  it('refuses an inline modifier with the general advice, even beside a repetition of 16 the engine takes', () => {
    const general = /^log probe: "[^"]+" cannot be matched in linear time, .*; avoid backreferences, lookaheads, inline modifiers/;
    expect(messageOf('(?i:ready)')).toMatch(general);
    expect(messageOf('(?i:a){16}')).toMatch(general);
  });

  it('reports a syntax error as such, and an empty pattern with an example', () => {
    expect(messageOf('(ready')).toBe('log probe: Invalid regular expression: /(ready/: Unterminated group');
    expect(messageOf('')).toMatch(/needs a pattern, e\.g\. log:/);
  });

  it('words its messages for the field it compiles: a cmdline matcher names no probe', () => {
    const compiled = compileLinearPattern('(a)\\1', CMDLINE_PATTERN);
    expect(compiled.ok ? '' : compiled.message).toMatch(/^"\(a\)\\\\1" uses a backreference/);
    const empty = compileLinearPattern('', CMDLINE_PATTERN);
    expect(empty.ok ? '' : empty.message).toBe('cmdline needs a regular expression, e.g. cmdline:linkerd2-proxy');
  });
});

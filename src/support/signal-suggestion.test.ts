import { describe, expect, it } from 'vitest';
import { didYouMeanSignal } from './signal-suggestion.ts';

describe('didYouMeanSignal', () => {
  it.each([
    ['SIGKIL', 'SIGKILL'],
    ['SIGTREM', 'SIGTERM'],
    ['trem', 'SIGTERM'],
    ['hpu', 'SIGHUP'],
  ])('suggests for %j the signal one edit away, %s', (text, meant) => {
    expect(didYouMeanSignal(text)).toBe(` (did you mean ${meant}?)`);
  });

  it.each(['SIGFOO', '9x', '', 'TERMINATE'])('suggests nothing for %j: SIG is not counted, and two edits reach too far', (text) => {
    expect(didYouMeanSignal(text)).toBe('');
  });
});

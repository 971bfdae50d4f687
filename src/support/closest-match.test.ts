import { describe, expect, it } from 'vitest';
import { closestMatch, didYouMean } from './closest-match.ts';

describe('closestMatch', () => {
  it.each([
    ['readines', 'readiness'],
    ['tpc', 'tcp'],
    ['ISTOI', 'istio'],
    ['x0', 's0'],
    ['alwyas', 'always'],
  ])('takes %j for %j: a letter or two away', (text, meant) => {
    expect(closestMatch(text, ['readiness', 'tcp', 'istio', 's0', 'always', 'never'])).toBe(meant);
  });

  it.each([
    ['up', ['on', 'off']],
    ['', ['on']],
    ['x', ['y']],
    ['processes', ['grace']],
  ])('suggests nothing for %j among %j: rewriting every letter, or more than two, is no typo', (text, candidates) => {
    expect(closestMatch(text, candidates)).toBeUndefined();
  });

  it('keeps to a smaller distance when asked', () => {
    expect(closestMatch('abcd', ['abef'])).toBe('abef');
    expect(closestMatch('abcd', ['abef'], 1)).toBeUndefined();
    expect(closestMatch('abcd', ['abce'], 1)).toBe('abce');
  });
});

describe('didYouMean', () => {
  it('is the clause after a refused value, or nothing', () => {
    expect(didYouMean('prefx', ['inherit', 'prefix', 'json'])).toBe(' (did you mean prefix?)');
    expect(didYouMean('zzzzz', ['inherit', 'prefix', 'json'])).toBe('');
  });
});

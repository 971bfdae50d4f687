import { describe, expect, it } from 'vitest';
import { countNoun } from './count-noun.ts';

describe('countNoun', () => {
  it('is singular for one only, and takes an irregular plural', () => {
    expect(countNoun(1, 'init step')).toBe('1 init step');
    expect(countNoun(0, 'sidecar')).toBe('0 sidecars');
    expect(countNoun(2, 'sidecar')).toBe('2 sidecars');
    expect(countNoun(3, 'process', 'processes')).toBe('3 processes');
    expect(countNoun(1, 'process', 'processes')).toBe('1 process');
  });
});

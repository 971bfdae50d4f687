import { describe, expect, it } from 'vitest';
import { ANNOUNCED_STATES, hasReached, isAnnouncedState } from './announced-state.ts';

describe('announced states', () => {
  it('come in the order a run goes through them', () => {
    expect(ANNOUNCED_STATES).toEqual(['starting', 'ready', 'stopping', 'exited']);
  });

  it('are reached at the state waited for or any later one, never an earlier one', () => {
    expect(hasReached('ready', 'ready')).toBe(true);
    expect(hasReached('exited', 'ready')).toBe(true);
    expect(hasReached('starting', 'ready')).toBe(false);
    expect(hasReached('stopping', 'exited')).toBe(false);
  });

  it('are only the four names', () => {
    for (const state of ANNOUNCED_STATES) expect(isAnnouncedState(state)).toBe(true);
    expect(isAnnouncedState('running')).toBe(false);
    expect(isAnnouncedState('')).toBe(false);
    expect(isAnnouncedState(undefined)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { timerId, type TimerKey } from './events.ts';

describe('timerId', () => {
  it('names each timer apart: the runner keeps one timer per id, so two ids alike would cancel each other', () => {
    const timers: TimerKey[] = [
      { kind: 'grace' },
      { kind: 'kill' },
      { kind: 'restart', name: 'proxy' },
      { kind: 'restart', name: 'app' },
      { kind: 'deadline', name: 'proxy' },
      { kind: 'process-grace', name: 'proxy' },
    ];
    expect(timers.map(timerId)).toEqual(['grace', 'kill', 'restart:proxy', 'restart:app', 'deadline:proxy', 'process-grace:proxy']);
  });
});

import { describe, expect, it } from 'vitest';
import { monotonicMs } from './monotonic-clock.ts';

describe('monotonicMs', () => {
  it('reads the process’s monotonic clock in milliseconds', () => {
    // The same clock read in nanoseconds just before and just after: the reading lies between them.
    const before = Number(process.hrtime.bigint()) / 1e6;
    const reading = monotonicMs();
    const after = Number(process.hrtime.bigint()) / 1e6;
    expect(reading).toBeGreaterThanOrEqual(before - 0.001);
    expect(reading).toBeLessThanOrEqual(after + 0.001);
  });
});

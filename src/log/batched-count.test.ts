import { describe, expect, it } from 'vitest';
import { createBatchedCount } from './batched-count.ts';

describe('createBatchedCount', () => {
  it('reports the first count at once and sums the rest of the interval into one report', async () => {
    const reports: number[] = [];
    let resolveSecond: () => void = () => {};
    const second = new Promise<void>((resolve) => {
      resolveSecond = resolve;
    });
    const batched = createBatchedCount(50, (count) => {
      reports.push(count);
      if (reports.length === 2) resolveSecond();
    });
    batched.add(1);
    for (let i = 0; i < 2_000; i += 1) batched.add(2);
    expect(reports).toEqual([1]);
    await second;
    expect(reports).toEqual([1, 4_000]);
  });

  it('flush reports what is pending at once, and nothing when nothing is', () => {
    const reports: number[] = [];
    const batched = createBatchedCount(60_000, (count) => reports.push(count));
    batched.add(3);
    batched.add(4);
    batched.add(5);
    batched.flush();
    batched.flush();
    expect(reports).toEqual([3, 9]);
  });
});

import { describe, expect, it } from 'vitest';
import type { CheckArgs } from './plan-injection.ts';
import { rememberVerdicts, VERDICT_MEMORY_LIMITS } from './remember-verdicts.ts';

function counting(): { check: CheckArgs; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    check: (command, env) => {
      asked.push(JSON.stringify([command, env]));
      return command.flags.includes('bad') ? { ok: false, message: `bad: ${command.app.join(' ')}` } : { ok: true };
    },
  };
}

describe('rememberVerdicts', () => {
  it('asks once per command line and environment, and forgets the oldest past its bound of entries', () => {
    const { check, asked } = counting();
    const memory = rememberVerdicts(check);
    const job = { flags: ['--grace', '5s'], app: ['job'] };
    expect(memory.check(job, {})).toEqual({ ok: true });
    expect(memory.check(job, {})).toEqual({ ok: true });
    expect(memory.check({ flags: ['bad'], app: ['x'] }, {})).toEqual({ ok: false, message: 'bad: x' });
    expect(memory.check({ flags: ['bad'], app: ['x'] }, {})).toEqual({ ok: false, message: 'bad: x' });
    expect(memory.check(job, { SIDECAR_INIT_GRACE: '1s' })).toEqual({ ok: true });
    // The same words split differently between flags and app are another command line.
    expect(memory.check({ flags: ['--grace', '5s', 'job'], app: [] }, {})).toEqual({ ok: true });
    expect(asked).toHaveLength(4);
    for (let index = 0; index < VERDICT_MEMORY_LIMITS.maxEntries; index += 1) memory.check({ flags: [], app: [`job-${index}`] }, {});
    expect(memory.size()).toBe(VERDICT_MEMORY_LIMITS.maxEntries);
    memory.check(job, {});
    expect(asked).toHaveLength(4 + VERDICT_MEMORY_LIMITS.maxEntries + 1);
  });

  it('counts what it keeps in bytes: a megabyte command line costs a digest, never its words', () => {
    let asked = 0;
    const memory = rememberVerdicts(() => {
      asked += 1;
      return { ok: true };
    });
    const word = 'x'.repeat(128 * 1024);
    for (let index = 0; index < 300; index += 1) memory.check({ flags: [], app: ['/app/job', ...Array(8).fill(word), String(index)] }, {});
    expect(asked).toBe(300);
    expect(memory.size()).toBe(VERDICT_MEMORY_LIMITS.maxEntries);
    // Each entry is its digest and a fixed overhead, far below the megabyte of its command line.
    expect(memory.bytes()).toBeLessThanOrEqual(VERDICT_MEMORY_LIMITS.maxEntries * 512);
    expect(memory.bytes()).toBeGreaterThan(0);
  });

  it('keeps at most maxBytes of messages, forgetting the oldest, and does not keep a verdict larger than maxEntryBytes', () => {
    const { check, asked } = counting();
    const limits = { maxEntries: 1_000, maxBytes: 64 * 1024, maxEntryBytes: 8 * 1024 };
    const memory = rememberVerdicts(check, limits);
    const message = 'm'.repeat(4 * 1024);
    for (let index = 0; index < 100; index += 1) {
      memory.check({ flags: ['bad'], app: [`${index}`, message] }, {});
      expect(memory.bytes()).toBeLessThanOrEqual(limits.maxBytes);
    }
    // 4 KiB messages and their overhead: fewer than 16 fit in 64 KiB.
    expect(memory.size()).toBeGreaterThan(10);
    expect(memory.size()).toBeLessThan(16);
    const before = asked.length;
    memory.check({ flags: ['bad'], app: ['99', message] }, {});
    expect(asked).toHaveLength(before);
    memory.check({ flags: ['bad'], app: ['0', message] }, {});
    expect(asked).toHaveLength(before + 1);

    const huge = { flags: ['bad'], app: ['m'.repeat(9 * 1024)] };
    const kept = memory.bytes();
    expect(memory.check(huge, {})).toMatchObject({ ok: false });
    memory.check(huge, {});
    expect(asked).toHaveLength(before + 3);
    expect(memory.bytes()).toBe(kept);
  });
});

import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { DURATION_PATTERN, duration, formatDuration, looksLikeDuration, MAX_DURATION_MS, parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['5s', 5_000],
    ['1m', 60_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    ['1h2m3s4ms', 3_723_004],
    ['1.5s', 1_500],
    ['1.25s', 1_250],
    ['0.125m', 7_500],
    ['0s', 0],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, value: ms });
  });

  it('rejects a bare number with a hint to add a unit', () => {
    expect(parseDuration('5')).toEqual({ ok: false, message: '5 has no unit; write e.g. 5s or 5ms' });
    expect(parseDuration('1.25')).toEqual({ ok: false, message: '1.25 has no unit; write e.g. 1.25s or 1.25ms' });
    expect(parseDuration('90')).toEqual({ ok: false, message: '90 has no unit; write e.g. 90s or 90ms' });
  });

  // 1m30 and v1 end in digits but are no bare number: they say what a duration is, not to add a unit.
  it.each(['5x', '', ' 5s', '5 s', '-5s', '5S', 's', '1d', '1m30', 'v1'])('rejects %j with examples', (text) => {
    expect(parseDuration(text)).toEqual({
      ok: false,
      message: `${JSON.stringify(text)} is not a duration; use e.g. 500ms, 5s, 1m`,
    });
  });

  it("rejects durations longer than Node's timers can hold", () => {
    expect(parseDuration('596h31m23s647ms')).toEqual({ ok: true, value: MAX_DURATION_MS });
    expect(parseDuration('597h')).toMatchObject({ ok: false, message: expect.stringMatching(/^"597h" is too long/) });
  });
});

describe('looksLikeDuration', () => {
  // --drain DURATION|CMD: a value meant as a duration is reported as one, not run as a command.
  it.each(['5s', '-1s', '1m30', '1s5', '1..5s', '5S', '+2m', '5', '1.5'])('takes %j as meant for a duration', (text) => {
    expect(looksLikeDuration(text)).toBe(true);
  });

  it.each(['sleep 5', 'drain.sh', '5 s', 's', '1d'])('takes %j as a command', (text) => {
    expect(looksLikeDuration(text)).toBe(false);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [100, '100ms'],
    [25_000, '25s'],
    [90_000, '1m30s'],
    [3_600_500, '1h500ms'],
  ])('writes %i ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toEqual({ ok: true, value: ms });
  });
});

describe('duration fields', () => {
  // What editors read through the JSON Schema: the field as written, before it is parsed to ms.
  it('give editors the pattern, examples and the default written as a duration', () => {
    const schema = (field: z.ZodType) => z.toJSONSchema(field, { io: 'input' });
    expect(schema(duration('The grace.', 90_000))).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'string',
      description: 'The grace.',
      pattern: DURATION_PATTERN,
      default: '1m30s',
      examples: ['500ms', '5s', '1m30s'],
    });
    expect(schema(duration('A deadline.'))).not.toHaveProperty('default');
  });
});

import { describe, expect, it } from 'vitest';
import { checkWholeNumber, EXIT_CODE_RANGE, MAX_RESTARTS_RANGE, parseWholeNumber } from './schema-fields.ts';

describe('whole numbers', () => {
  it('accept whole numbers in the range, bounds included', () => {
    expect([0, 255].map((code) => checkWholeNumber(code, EXIT_CODE_RANGE))).toEqual([
      { ok: true, value: 0 },
      { ok: true, value: 255 },
    ]);
    expect(checkWholeNumber(1_000_000, MAX_RESTARTS_RANGE)).toEqual({ ok: true, value: 1_000_000 });
  });

  it.each([256, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuse %d as an exit code', (value) => {
    expect(checkWholeNumber(value, EXIT_CODE_RANGE)).toEqual({
      ok: false,
      message: `${value} is not an exit code; use a whole number from 0 to 255`,
    });
  });

  it('say "or more" for a range without a maximum', () => {
    expect(checkWholeNumber(-1, MAX_RESTARTS_RANGE)).toEqual({
      ok: false,
      message: '-1 is not a number of restarts; use a whole number of 0 or more',
    });
  });

  it('read flags as decimal digits only', () => {
    expect(parseWholeNumber('143', EXIT_CODE_RANGE)).toEqual({ ok: true, value: 143 });
    expect(parseWholeNumber('0143', EXIT_CODE_RANGE)).toEqual({ ok: true, value: 143 });
    for (const text of ['1e2', '0x8F', ' 1', '+1', '1.0']) {
      expect(parseWholeNumber(text, EXIT_CODE_RANGE)).toEqual({
        ok: false,
        message: `${JSON.stringify(text)} is not an exit code; use a whole number from 0 to 255`,
      });
    }
  });
});

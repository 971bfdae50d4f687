import { describe, expect, it } from 'vitest';
import { assertNever } from './assert-never.ts';

describe('assertNever', () => {
  it('throws, naming the value no branch handled', () => {
    expect(() => assertNever({ kind: 'new' } as never)).toThrow('unexpected value: {"kind":"new"}');
  });
});

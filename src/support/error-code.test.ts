import { describe, expect, it } from 'vitest';
import { errorCode } from './error-code.ts';

describe('errorCode', () => {
  it('is the string code of a Node system error', () => {
    expect(errorCode(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBe('ENOENT');
  });

  it('is undefined for an error without one, a code that is not a string, or what is not an Error', () => {
    expect(errorCode(new Error('plain'))).toBeUndefined();
    expect(errorCode(Object.assign(new Error('numbered'), { code: 2 }))).toBeUndefined();
    expect(errorCode({ code: 'ENOENT' })).toBeUndefined();
    expect(errorCode('ENOENT')).toBeUndefined();
    expect(errorCode(undefined)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { formatAddress } from './format-address.ts';

describe('formatAddress', () => {
  it('writes HOST:PORT, with an IPv6 host in brackets', () => {
    expect(formatAddress('127.0.0.1', 8080)).toBe('127.0.0.1:8080');
    expect(formatAddress('localhost', 1)).toBe('localhost:1');
    expect(formatAddress('::1', 9797)).toBe('[::1]:9797');
  });
});

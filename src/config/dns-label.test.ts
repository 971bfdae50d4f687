import { describe, expect, it } from 'vitest';
import { validateName } from './dns-label.ts';

describe('validateName', () => {
  it.each(['proxy', 'a', '0', 'net-setup', 'a1-b2', 'x'.repeat(63)])('accepts %j', (name) => {
    expect(validateName(name)).toBeUndefined();
  });

  it.each(['', 'Proxy', '-proxy', 'proxy-', 'my_proxy', 'my.proxy', 'prøxy'])('rejects %j as not a DNS label', (name) => {
    expect(validateName(name)).toMatch(/is not a valid name; use lower-case letters, digits and "-".*\(a DNS label/);
  });

  it('rejects names longer than 63 characters', () => {
    expect(validateName('x'.repeat(64))).toBe(`"${'x'.repeat(64)}" is 64 characters long; a name has at most 63 (a DNS label)`);
  });
});

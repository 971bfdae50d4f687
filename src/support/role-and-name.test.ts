import { describe, expect, it } from 'vitest';
import { roleAndName } from './role-and-name.ts';

describe('roleAndName', () => {
  it('names the role, then the process, unless the name only repeats the role', () => {
    expect(roleAndName('app', 'export-job')).toBe('app export-job');
    expect(roleAndName('app', 'app')).toBe('the app');
    expect(roleAndName('init step', 'migrate')).toBe('init step migrate');
  });
});

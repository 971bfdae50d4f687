import { describe, expect, it } from 'vitest';
import { isLogLevel, isRestartPolicy, LOG_LEVELS, RESTART_POLICIES } from './literals.ts';

describe('the literal lists', () => {
  it('tell a log level and a restart policy from any other value', () => {
    for (const level of LOG_LEVELS) expect(isLogLevel(level)).toBe(true);
    for (const policy of RESTART_POLICIES) expect(isRestartPolicy(policy)).toBe(true);
    for (const other of ['loud', 'INFO', '', undefined, 3]) {
      expect(isLogLevel(other)).toBe(false);
      expect(isRestartPolicy(other)).toBe(false);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULTS } from './plan.ts';
import { compileLinearPattern, CMDLINE_PATTERN } from './linear-pattern.ts';
import { COMM_MAX_BYTES, describeMatch, truncateComm } from './process-match.ts';

describe('truncateComm', () => {
  it('keeps a comm of up to 15 bytes and cuts a longer one to 15, as the kernel does', () => {
    expect(COMM_MAX_BYTES).toBe(15);
    expect(truncateComm('envoy')).toBe('envoy');
    expect(truncateComm('a'.repeat(15))).toBe('a'.repeat(15));
    expect(truncateComm('cloud-sql-proxy-v2')).toBe('cloud-sql-proxy');
  });

  it('counts bytes, not characters, and reads a cut character as /proc/PID/comm read as UTF-8 gives it', () => {
    // 'é' is two bytes: seven are 14 and stay; of eight (16 bytes) the kernel keeps the first byte of the last.
    expect(truncateComm('é'.repeat(7))).toBe('é'.repeat(7));
    expect(truncateComm('é'.repeat(8))).toBe(`${'é'.repeat(7)}\uFFFD`);
  });
});

describe('describeMatch', () => {
  it('names each field given, in the README’s words, and maxMatches only when it is not 1', () => {
    const cmdline = compileLinearPattern('^envoy ', CMDLINE_PATTERN);
    if (!cmdline.ok) throw new Error(cmdline.message);
    expect(DEFAULTS.external.maxMatches).toBe(1);
    expect(describeMatch({ comm: 'envoy', maxMatches: 1 })).toBe('comm envoy');
    expect(describeMatch({ cmdline: cmdline.pattern, uid: 1337, maxMatches: 1 })).toBe('cmdline /^envoy /, uid 1337');
    expect(describeMatch({ comm: 'envoy', cmdline: cmdline.pattern, uid: 0, maxMatches: 3 })).toBe(
      'comm envoy, cmdline /^envoy /, uid 0, maxMatches 3',
    );
  });
});

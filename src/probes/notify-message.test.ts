import { describe, expect, it } from 'vitest';
import { MAX_STATUS_CHARS, parseNotifyMessage, printableStatus } from './notify-message.ts';

describe('parseNotifyMessage', () => {
  it('reads READY=1, the last STATUS= and the watchdog assignments, one per line', () => {
    expect(parseNotifyMessage(Buffer.from('READY=1\nSTATUS=first\nSTATUS=serving 3 clients\nMAINPID=12'))).toEqual({
      ready: true,
      status: 'serving 3 clients',
      watchdogPing: false,
      watchdogTrigger: false,
    });
    expect(parseNotifyMessage(Buffer.from('WATCHDOG=1'))).toMatchObject({ ready: false, watchdogPing: true, watchdogTrigger: false });
    expect(parseNotifyMessage(Buffer.from('WATCHDOG=trigger'))).toMatchObject({ watchdogPing: false, watchdogTrigger: true });
  });

  it('ignores what is not an assignment it knows, and READY with another value', () => {
    expect(parseNotifyMessage(Buffer.from('READY=0\nREADY\n=1\nBARRIER=1\n\n'))).toEqual({
      ready: false,
      status: undefined,
      watchdogPing: false,
      watchdogTrigger: false,
    });
  });
});

describe('printableStatus', () => {
  it('escapes control characters, so a status cannot forge a log line or move a cursor', () => {
    expect(printableStatus('ok\n{"level":"fatal"}\u001b[2J\u0085')).toBe('ok\\u000a{"level":"fatal"}\\u001b[2J\\u0085');
  });

  it('keeps other text, emoji included, and escapes a lone surrogate', () => {
    expect(printableStatus('élan 🚀 ready')).toBe('élan 🚀 ready');
    expect(printableStatus('a\ud800b')).toBe('a\\ud800b');
  });

  it(`cuts a status after ${MAX_STATUS_CHARS} characters`, () => {
    expect(printableStatus('x'.repeat(10_000))).toBe(`${'x'.repeat(MAX_STATUS_CHARS)}…`);
  });
});

import { describe, expect, it } from 'vitest';
import { encodeRequest, parseRequest, parseSignalName } from './protocol.ts';

describe('the control protocol', () => {
  it('reads what ctl writes, command by command', () => {
    for (const request of [
      { cmd: 'status' },
      { cmd: 'action', command: { kind: 'restart', name: 'proxy' } },
      { cmd: 'action', command: { kind: 'stop', name: 'proxy' } },
      { cmd: 'action', command: { kind: 'start', name: 'proxy' } },
      { cmd: 'action', command: { kind: 'signal', name: 'app', signal: 'SIGHUP' } },
    ] as const) {
      expect(parseRequest(encodeRequest(request).trimEnd())).toEqual({ ok: true, value: request });
    }
  });

  it('refuses anything else with the reason, so nothing unchecked reaches the lifecycle', () => {
    expect(parseRequest('restart proxy')).toEqual({ ok: false, error: 'the request is not JSON' });
    expect(parseRequest('[1]')).toEqual({ ok: false, error: 'unknown command; use status, restart, stop, start or signal' });
    expect(parseRequest('{"cmd":"restart"}')).toEqual({ ok: false, error: 'the request has no valid process name' });
    expect(parseRequest('{"cmd":"restart","name":"a\\nb"}')).toEqual({ ok: false, error: 'the request has no valid process name' });
    expect(parseRequest('{"cmd":"kill","name":"a"}')).toEqual({
      ok: false,
      error: 'unknown command; use status, restart, stop, start or signal',
    });
    expect(parseRequest('{"cmd":"signal","name":"a","signal":"SIGNOPE"}')).toEqual({
      ok: false,
      error: '"SIGNOPE" is not a signal name, e.g. SIGHUP or HUP',
    });
  });

  it('takes signal names with or without SIG, in any case; never numbers', () => {
    expect(parseSignalName('hup')).toBe('SIGHUP');
    expect(parseSignalName('SIGUSR1')).toBe('SIGUSR1');
    expect(parseSignalName('1')).toBeUndefined();
  });
});

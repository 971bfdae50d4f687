import { describe, expect, it } from 'vitest';
import { rememberVerdicts } from './remember-verdicts.ts';

describe('rememberVerdicts', () => {
  it('asks once per command line and environment, and forgets the oldest past its bound', () => {
    const asked: string[] = [];
    const check = rememberVerdicts((argv, env) => {
      asked.push(JSON.stringify([argv, env]));
      return argv.includes('bad') ? { ok: false, message: 'bad' } : { ok: true };
    });
    expect(check(['--grace', '5s', '--', 'job'], {})).toEqual({ ok: true });
    expect(check(['--grace', '5s', '--', 'job'], {})).toEqual({ ok: true });
    expect(check(['bad'], {})).toEqual({ ok: false, message: 'bad' });
    expect(check(['bad'], {})).toEqual({ ok: false, message: 'bad' });
    expect(check(['--grace', '5s', '--', 'job'], { SIDECAR_INIT_GRACE: '1s' })).toEqual({ ok: true });
    expect(asked).toHaveLength(3);
    for (let index = 0; index < 256; index += 1) check([`job-${index}`], {});
    check(['--grace', '5s', '--', 'job'], {});
    expect(asked).toHaveLength(3 + 256 + 1);
  });
});

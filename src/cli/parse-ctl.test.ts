import { describe, expect, it } from 'vitest';
import { parseArgs } from './parse-args.ts';

const NO_ENV = {};

describe('sidecar-init ctl', () => {
  it('reads each command with the socket from --control or SIDECAR_INIT_CONTROL', () => {
    expect(parseArgs(['ctl', '--control', '/run/s.sock', 'status'], NO_ENV)).toEqual({
      kind: 'ctl',
      path: '/run/s.sock',
      request: { cmd: 'status' },
      json: false,
    });
    expect(parseArgs(['ctl', '--json', 'restart', 'proxy'], { SIDECAR_INIT_CONTROL: '/run/s.sock' })).toEqual({
      kind: 'ctl',
      path: '/run/s.sock',
      request: { cmd: 'action', command: { kind: 'restart', name: 'proxy' } },
      json: true,
    });
    expect(parseArgs(['ctl', '--control=/s', 'signal', 'app', 'usr1'], NO_ENV)).toMatchObject({
      request: { cmd: 'action', command: { kind: 'signal', name: 'app', signal: 'SIGUSR1' } },
    });
  });

  it('without --control or its variable, uses the default socket of this uid, whose folder it checks first', () => {
    const uid = process.geteuid?.() ?? 0;
    expect(parseArgs(['ctl', 'status'], NO_ENV)).toEqual({
      kind: 'ctl',
      path: `/tmp/sidecar-init-${uid}/control.sock`,
      trustedDir: `/tmp/sidecar-init-${uid}`,
      request: { cmd: 'status' },
      json: false,
      waitMs: undefined,
    });
    expect(parseArgs(['ctl', 'status'], { SIDECAR_INIT_CONTROL: '/run/x.sock' })).toMatchObject({
      path: '/run/x.sock',
      trustedDir: undefined,
    });
  });

  it('takes restart --wait, with a timeout of 60s unless --timeout says', () => {
    expect(parseArgs(['ctl', 'restart', '--wait', 'proxy'], NO_ENV)).toMatchObject({
      request: { cmd: 'action', command: { kind: 'restart', name: 'proxy' } },
      waitMs: 60_000,
    });
    expect(parseArgs(['ctl', '--control', '/s', 'restart', '--wait', '--timeout', '2m', 'proxy'], NO_ENV)).toMatchObject({
      waitMs: 120_000,
    });
    expect(parseArgs(['ctl', 'restart', 'proxy'], NO_ENV)).toMatchObject({ waitMs: undefined });
  });

  it.each([
    [['ctl', 'status', '--wait'], 'sidecar-init ctl: --wait and --timeout are for restart only'],
    [['ctl', 'restart', '--timeout', '5s', 'proxy'], 'sidecar-init ctl: --timeout needs --wait: restart --wait --timeout 2m NAME'],
    [['ctl', 'restart', '--wait', '--timeout', '5', 'proxy'], 'sidecar-init ctl: --timeout 5 has no unit; write e.g. 5s or 5ms'],
    [['ctl', '--control', '/s'], 'sidecar-init ctl: no command: use status, restart NAME, stop NAME, start NAME or signal NAME SIGNAL'],
    [['ctl', '--control', '/s', 'restart'], 'sidecar-init ctl: restart takes a NAME'],
    [['ctl', '--control', '/s', 'reload', 'x'], "sidecar-init ctl: unknown command 'reload': use status, restart, stop, start or signal"],
    [
      ['ctl', '--control', '/s', 'toString', 'x'],
      "sidecar-init ctl: unknown command 'toString': use status, restart, stop, start or signal",
    ],
    [['ctl', '--control', '/s', 'signal', 'app', '9'], "sidecar-init ctl: '9' is not a signal name, e.g. SIGHUP or HUP"],
    [
      ['ctl', '--control', '/s', 'restrat', 'x'],
      "sidecar-init ctl: unknown command 'restrat' (did you mean restart?): use status, restart, stop, start or signal",
    ],
    [
      ['ctl', '--control', '/s', 'signal', 'app', 'SIGTREM'],
      "sidecar-init ctl: 'SIGTREM' is not a signal name (did you mean SIGTERM?), e.g. SIGHUP or HUP",
    ],
    [
      ['ctl', '--control', '/s', 'signal', 'app', 'hpu'],
      "sidecar-init ctl: 'hpu' is not a signal name (did you mean SIGHUP?), e.g. SIGHUP or HUP",
    ],
  ])('exits 2 on %j, saying what is wrong', (argv, message) => {
    expect(parseArgs(argv, NO_ENV)).toEqual({ kind: 'exit', code: 2, output: `${message}\n(sidecar-init ctl --help shows the usage)\n` });
  });

  it('shows its help, which says the app cannot be stopped this way', () => {
    const help = parseArgs(['ctl', '--help'], NO_ENV);
    expect(help).toMatchObject({ kind: 'exit', code: 0 });
    expect(help.kind === 'exit' && help.output).toContain('The app cannot be stopped or restarted this way');
  });
});

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

  it.each([
    [['ctl', 'status'], 'error: no control socket: give --control PATH or set SIDECAR_INIT_CONTROL'],
    [['ctl', '--control', '/s'], 'error: no command: use status, restart NAME, stop NAME, start NAME or signal NAME SIGNAL'],
    [['ctl', '--control', '/s', 'restart'], 'error: restart takes a NAME'],
    [['ctl', '--control', '/s', 'reload', 'x'], "error: unknown command 'reload': use status, restart, stop, start or signal"],
    [['ctl', '--control', '/s', 'signal', 'app', '9'], "error: '9' is not a signal name, e.g. SIGHUP or HUP"],
  ])('exits 2 on %j, saying what is wrong', (argv, message) => {
    expect(parseArgs(argv, NO_ENV)).toEqual({ kind: 'exit', code: 2, output: `${message}\n(sidecar-init ctl --help shows the usage)\n` });
  });

  it('shows its help, which says the app cannot be stopped this way', () => {
    const help = parseArgs(['ctl', '--help'], NO_ENV);
    expect(help).toMatchObject({ kind: 'exit', code: 0 });
    expect(help.kind === 'exit' && help.output).toContain('The app cannot be stopped or restarted this way');
  });
});

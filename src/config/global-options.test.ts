import { afterEach, describe, expect, it, vi } from 'vitest';
import { load, problemsOf } from '../../test/support/config.ts';
import { DEFAULTS } from '../plan/plan.ts';
import { optionFlag, optionVariable, parseControlPath, planOptionLines, planOptionsView } from './global-options.ts';

describe('parseControlPath', () => {
  it('takes an absolute path of up to 100 bytes', () => {
    expect(parseControlPath('/run/sidecar-init.sock')).toEqual({ ok: true, value: { kind: 'path', path: '/run/sidecar-init.sock' } });
    const longest = `/${'s'.repeat(99)}`;
    expect(parseControlPath(longest)).toEqual({ ok: true, value: { kind: 'path', path: longest } });
    expect(parseControlPath('none')).toEqual({ ok: true, value: { kind: 'none' } });
  });

  it('refuses a relative path, a NUL, a directory and a path too long for a socket, saying what to give', () => {
    expect(parseControlPath('run/s.sock')).toEqual({
      ok: false,
      message: '"run/s.sock" is not an absolute path; give one, e.g. /run/sidecar-init.sock, or none',
    });
    expect(parseControlPath('/run/a\0b')).toEqual({ ok: false, message: 'the path has a NUL character, which no file name can hold' });
    expect(parseControlPath('/run/')).toEqual({
      ok: false,
      message: `"/run/" names a directory; give the socket's own name, e.g. /run/sidecar-init.sock`,
    });
    // Bytes, not characters: 50 'é' are 100 bytes, and the slash makes 101.
    expect(parseControlPath(`/${'é'.repeat(50)}`)).toEqual({
      ok: false,
      message: "is 101 bytes long; at most 100 (a Unix socket's path holds 107, and the socket is bound under a longer name first)",
    });
  });
});

/** Every option of the file given, each with a value that is not its default. */
const EVERY_OPTION = `
  grace: 20s
  logLevel: debug
  logFormat: text
  statusAddr: "[::1]:9797"
  terminationLog: /run/termination
  control: /run/s.sock
  announce: /handoff/app
  until: /handoff/db=ready
  announcerUid: 1000
  output: json
  drain: { exec: "curl -X POST http://127.0.0.1:1/drain", timeout: 3s }
  rewrite: { SIGTERM: SIGQUIT, SIGHUP: none }
  singleChild: true
  parentDeathSignal: term
  processes: [{ name: job, role: app, command: job }]
`;

const APP = 'processes: [{ name: job, role: app, command: job }]';

describe('plan, for the options', () => {
  it('prints a line for each option given, in the table order, and the grace budget and control socket by default', () => {
    expect(planOptionLines(load({ yaml: EVERY_OPTION }))).toEqual([
      'grace budget: 20s, from the first stop signal to exit',
      'log level: debug',
      'log format: text',
      'status server: http://[::1]:9797 (/healthz, /readyz, /status, /metrics)',
      'termination message: /run/termination (a failure is a warning)',
      'control socket: /run/s.sock (sidecar-init ctl --control /run/s.sock status)',
      "announce: /handoff/app keeps this run's state (starting, ready, stopping, exited)",
      'until: /handoff/db says ready (or later), then stops as if the app exited 0',
      'announce files read: only those uid 1000 owns and no one else may write',
      'drain: exec: curl -X POST http://127.0.0.1:1/drain, timeout 3s',
      'signal rewrites: SIGTERM -> SIGQUIT, SIGHUP -> dropped',
      'parent death signal: SIGTERM when the parent exits (not as PID 1)',
    ]);
    expect(planOptionLines(load({ yaml: APP }))).toEqual([
      'grace budget: 25s, from the first stop signal to exit',
      `control socket: /tmp/sidecar-init-${process.geteuid?.() ?? 0}/control.sock (sidecar-init ctl status)`,
    ]);
  });

  it('says the termination message is none, and prints no control socket for none', () => {
    const yaml = `terminationLog: none\ncontrol: none\ndrain: 2s\n${APP}`;
    expect(planOptionLines(load({ yaml }))).toEqual([
      'grace budget: 25s, from the first stop signal to exit',
      'termination message: none',
      'drain: wait 2s',
    ]);
  });

  it('--json: every option, null where nothing is given', () => {
    expect(planOptionsView(load({ yaml: EVERY_OPTION }))).toEqual({
      graceMs: 20_000,
      logLevel: 'debug',
      logFormat: 'text',
      statusAddr: '[::1]:9797',
      terminationLog: { kind: 'file', path: '/run/termination' },
      control: '/run/s.sock',
      announce: '/handoff/app',
      until: { file: '/handoff/db', state: 'ready' },
      announcerUid: 1000,
      output: 'json',
      drain: { hook: { kind: 'exec', describe: 'exec: curl -X POST http://127.0.0.1:1/drain', timeoutMs: 3_000 } },
      rewrite: { SIGTERM: 'SIGQUIT', SIGHUP: null },
      singleChild: true,
      parentDeathSignal: 'SIGTERM',
    });
    expect(planOptionsView(load({ yaml: APP }))).toEqual({
      graceMs: DEFAULTS.graceMs,
      logLevel: DEFAULTS.logLevel,
      logFormat: null,
      statusAddr: null,
      terminationLog: { kind: 'if-present', path: DEFAULTS.terminationLog },
      control: `/tmp/sidecar-init-${process.geteuid?.() ?? 0}/control.sock`,
      announce: null,
      until: null,
      announcerUid: null,
      output: DEFAULTS.output,
      drain: null,
      rewrite: {},
      singleChild: false,
      parentDeathSignal: null,
    });
    const none = planOptionsView(load({ yaml: `terminationLog: none\ncontrol: none\ndrain: 2s\n${APP}` }));
    expect(none).toMatchObject({ terminationLog: { kind: 'none', path: null }, control: null, drain: { delayMs: 2_000 } });
  });
});

describe('the default control socket', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("is this uid's, where ctl looks without --control", () => {
    vi.spyOn(process, 'geteuid').mockReturnValue(1234);
    const plan = load({ yaml: APP });
    expect(planOptionsView(plan).control).toBe('/tmp/sidecar-init-1234/control.sock');
    expect(planOptionLines(plan)).toContain('control socket: /tmp/sidecar-init-1234/control.sock (sidecar-init ctl status)');
  });
});

describe('options from flags', () => {
  it('take --announcer-uid as a number when it is digits, and report anything else as not a number', () => {
    expect(load({ yaml: APP, cli: { announcerUid: '1000' } }).announcerUid).toBe(1000);
    expect(problemsOf({ yaml: APP, cli: { announcerUid: '-1' } })).toEqual([
      '--announcer-uid -1: -1 is not a uid; use a whole number from 0 to 2147483647',
    ]);
    expect(problemsOf({ yaml: APP, cli: { announcerUid: '1x' } })).toEqual(['--announcer-uid 1x: expected a number, got "1x"']);
    expect(problemsOf({ yaml: APP, cli: { announcerUid: 'x1' } })).toEqual(['--announcer-uid x1: expected a number, got "x1"']);
  });

  it('take --drain as a delay when it reads as a duration, else as a command to run', () => {
    expect(load({ yaml: APP, cli: { drain: '5s' } }).drain).toEqual({ kind: 'delay', ms: 5_000 });
    expect(load({ yaml: APP, cli: { drain: 'curl -X POST http://127.0.0.1:1/drain' } }).drain).toMatchObject({
      kind: 'hook',
      hook: { kind: 'exec', command: ['curl', '-X', 'POST', 'http://127.0.0.1:1/drain'] },
    });
  });

  it("win over the file's, and --rewrite over the file's rewrite signal by signal", () => {
    const yaml = `grace: 20s\nrewrite: { SIGTERM: SIGQUIT, SIGHUP: none }\n${APP}`;
    const plan = load({ yaml, cli: { grace: '5s', rewrite: ['SIGINT:SIGTERM', 'SIGHUP:SIGUSR1'] } });
    expect(plan.graceMs).toBe(5_000);
    expect(plan.rewrite).toEqual({ SIGTERM: 'SIGQUIT', SIGHUP: 'SIGUSR1', SIGINT: 'SIGTERM' });
    expect(load({ yaml, cli: { logLevel: 'warn' } })).toMatchObject({ graceMs: 20_000, rewrite: { SIGTERM: 'SIGQUIT', SIGHUP: null } });
  });
});

describe('optionFlag and optionVariable', () => {
  it('write the option in kebab case after --, and in upper snake case after SIDECAR_INIT_', () => {
    expect(optionFlag('grace')).toBe('--grace');
    expect(optionFlag('announcerUid')).toBe('--announcer-uid');
    expect(optionVariable('grace')).toBe('SIDECAR_INIT_GRACE');
    expect(optionVariable('statusAddr')).toBe('SIDECAR_INIT_STATUS_ADDR');
  });
});

import { describe, expect, it } from 'vitest';
import { appOnlyWith, load, problemsOf } from '../../test/support/config.ts';
import { parseParentDeathSignal, parseSignal, parseStopSignal } from './signals.ts';

describe('stopSignal', () => {
  it('is read by name on any role, and is undefined by default', () => {
    const yaml = `
      processes:
        - { name: setup, role: init, command: setup, stopSignal: int }
        - { name: nginx, role: sidecar, command: nginx, stopSignal: SIGQUIT }
        - { name: job, role: app, command: job }
    `;
    expect(load({ yaml }).processes.map((process) => process.stopSignal)).toEqual(['SIGINT', 'SIGQUIT', undefined]);
  });

  it('reports an unknown name or a number at the key', () => {
    const yaml = `
      processes:
        - { name: nginx, role: sidecar, command: nginx, stopSignal: SIGQUITE }
        - { name: job, role: app, command: job, stopSignal: 3 }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:51 processes[0].stopSignal: "SIGQUITE" is not a signal (did you mean SIGQUIT?); use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional)',
      'demo.yaml:3:43 processes[1].stopSignal: 3 is a signal number; give the signal by name, e.g. SIGQUIT',
    ]);
  });

  it('from --stop-signal overrides the file, for any process, the app after -- included', () => {
    const yaml = `
      processes:
        - { name: nginx, role: sidecar, command: nginx, stopSignal: SIGINT }
        - { name: job, role: app, command: job }
    `;
    const cli = { stopSignal: ['nginx=quit', 'job=SIGUSR1'] };
    expect(load({ yaml, cli }).processes.map((process) => process.stopSignal)).toEqual(['SIGQUIT', 'SIGUSR1']);
    expect(load({ cli: { stopSignal: ['app=TERM'], app: ['job'] } }).processes[0]!.stopSignal).toBe('SIGTERM');
  });

  it('from --stop-signal reports a bad form, a bad signal, an unknown name and a repeat, with the flag', () => {
    const cli = { stopSignal: ['nginx', 'nginx=QUITE', 'ngnix=QUIT', 'job=INT', 'job=TERM'], app: ['job'] };
    expect(problemsOf({ yaml: 'processes: [{ name: nginx, role: sidecar, command: nginx }]', cli })).toEqual([
      '--stop-signal nginx: expected NAME=SIGNAL, e.g. --stop-signal nginx=SIGQUIT',
      '--stop-signal nginx=QUITE: "QUITE" is not a signal (did you mean SIGQUIT?); use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional)',
      '--stop-signal ngnix=QUIT: no process is named "ngnix"; the processes are nginx, app',
      '--stop-signal job=INT: no process is named "job"; the processes are nginx, app',
      '--stop-signal job=TERM: --stop-signal was already given for "job" (see --stop-signal job=INT)',
    ]);
  });
});

describe('grace per process', () => {
  it('is read as graceMs, undefined by default, zero allowed', () => {
    const yaml = `
      processes:
        - { name: proxy, role: sidecar, command: envoy, grace: 5s }
        - { name: log, role: sidecar, command: tail, grace: 0s }
        - { name: job, role: app, command: job }
    `;
    expect(load({ yaml }).processes.map((process) => process.graceMs)).toEqual([5_000, 0, undefined]);
  });

  it('reports a bad duration at the key', () => {
    const yaml = `
      processes:
        - { name: job, role: app, command: job, grace: 5 }
    `;
    expect(problemsOf({ yaml })).toEqual(['demo.yaml:2:43 processes[0].grace: 5 has no unit; write e.g. 5s or 5ms']);
  });
});

describe('signal targets', () => {
  const yaml = (top: string) => `
    ${top}
    processes:
      - { name: a, role: sidecar, command: a }
      - { name: b, role: sidecar, command: b, signalGroup: true }
      - { name: c, role: sidecar, command: c, signalGroup: false }
      - { name: job, role: app, command: job }
  `;

  it('are process groups by default; signalGroup: false sends to the child alone', () => {
    expect(load({ yaml: yaml('') }).processes.map((process) => process.signalTarget)).toEqual(['group', 'group', 'process', 'group']);
  });

  it('are the child alone for every process with singleChild or --single-child, unless signalGroup is set', () => {
    const expected = ['process', 'group', 'process', 'process'];
    expect(load({ yaml: yaml('singleChild: true') }).processes.map((process) => process.signalTarget)).toEqual(expected);
    expect(load({ yaml: yaml(''), cli: { singleChild: true } }).processes.map((process) => process.signalTarget)).toEqual(expected);
    const fromFlags = load({ cli: { singleChild: true, processes: [{ flag: '--sidecar', value: 'p=envoy' }], app: ['job'] } });
    expect(fromFlags.processes.map((process) => process.signalTarget)).toEqual(['process', 'process']);
  });

  it('report a value that is not a boolean', () => {
    expect(problemsOf({ yaml: yaml('singleChild: yes') })).toEqual(['demo.yaml:1:1 singleChild: expected a boolean, got "yes"']);
  });
});

describe('rewrite', () => {
  it('is empty by default', () => {
    expect(load({ yaml: appOnlyWith('grace: 5s') }).rewrite).toEqual({});
  });

  it('reads names on both sides in any case, SIG optional, and none to drop a signal', () => {
    const plan = load({ yaml: appOnlyWith('rewrite: { SIGTERM: SIGQUIT, hup: none, USR1: sigusr2, INT: NONE }') });
    expect(plan.rewrite).toEqual({ SIGTERM: 'SIGQUIT', SIGHUP: null, SIGUSR1: 'SIGUSR2', SIGINT: null });
  });

  it("takes dumb-init's numbers on either side, 0 to drop, in the file and in flags", () => {
    const plan = load({ yaml: appOnlyWith('rewrite: { 15: 3, 1: 0, SIGUSR1: 12, 28: SIGHUP }') });
    expect(plan.rewrite).toEqual({ SIGTERM: 'SIGQUIT', SIGHUP: null, SIGUSR1: 'SIGUSR2', SIGWINCH: 'SIGHUP' });
    const cli = { rewrite: ['15:3', '1:0', 'SIGUSR1:12', '2:none'], app: ['job'] };
    expect(load({ cli }).rewrite).toEqual({ SIGTERM: 'SIGQUIT', SIGHUP: null, SIGUSR1: 'SIGUSR2', SIGINT: null });
  });

  it('reports a number that names no signal, one that cannot be rewritten, and a repeat by name and number, at the key', () => {
    const yaml = `
      rewrite:
        14: 99
        15: 3
        9: 3
        40: 1
        0: 1
        TERM: 2
        SIGHUP: -1
        SIGINT: 2.5
      processes: [{ name: job, role: app, command: job }]
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:3 rewrite["14"]: 99 is not a signal number Linux names (1 to 31); give a number such as 15 or a name such as SIGTERM, or none (or 0) to drop SIGALRM',
      'demo.yaml:4:3 rewrite["9"]: SIGKILL cannot be caught, so it cannot be rewritten',
      'demo.yaml:5:3 rewrite["40"]: 40 is not a signal number Linux names (1 to 31); give a number such as 15 or a name such as SIGTERM',
      'demo.yaml:6:3 rewrite["0"]: 0 is not a signal number Linux names (1 to 31); give a number such as 15 or a name such as SIGTERM',
      'demo.yaml:7:3 rewrite.TERM: SIGTERM is already rewritten (see demo.yaml:3:3 rewrite["15"])',
      'demo.yaml:8:3 rewrite.SIGHUP: expected a signal name or number, or none, got -1',
      'demo.yaml:9:3 rewrite.SIGINT: expected a signal name or number, or none, got 2.5',
    ]);
    const cli = { rewrite: ['15:3', 'SIGTERM:2', '9:0', '15'], app: ['job'] };
    expect(problemsOf({ cli })).toEqual([
      '--rewrite SIGTERM:2: SIGTERM is already rewritten (see --rewrite 15:3)',
      '--rewrite 9:0: SIGKILL cannot be caught, so it cannot be rewritten',
      '--rewrite 15: expected FROM:TO, e.g. --rewrite SIGTERM:SIGQUIT or 15:3, or --rewrite SIGHUP:none (1:0) to drop a signal',
    ]);
  });

  it('reports each bad entry at its key: unknown names, an empty value, an uncatchable signal, a repeat', () => {
    const yaml = `
      rewrite:
        SIGTREM: SIGQUIT
        SIGHUP: nothing
        SIGUSR1:
        KILL: TERM
        TERM: QUIT
        SIGTERM: INT
      processes: [{ name: job, role: app, command: job }]
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:2:3 rewrite.SIGTREM: "SIGTREM" is not a signal (did you mean SIGTERM?); use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional)',
      'demo.yaml:3:3 rewrite.SIGHUP: "nothing" is not a signal; use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional), or none (or 0) to drop SIGHUP',
      'demo.yaml:4:3 rewrite.SIGUSR1: has no value; write none (or 0) to drop the signal',
      'demo.yaml:5:3 rewrite.KILL: SIGKILL cannot be caught, so it cannot be rewritten',
      'demo.yaml:7:3 rewrite.SIGTERM: SIGTERM is already rewritten (see demo.yaml:6:3 rewrite.TERM)',
    ]);
  });

  it('from --rewrite overrides the file signal by signal', () => {
    const plan = load({ yaml: appOnlyWith('rewrite: { TERM: QUIT, HUP: none }'), cli: { rewrite: ['SIGTERM:SIGINT', 'usr1:none'] } });
    expect(plan.rewrite).toEqual({ SIGTERM: 'SIGINT', SIGHUP: null, SIGUSR1: null });
  });

  it('from --rewrite reports a bad form, bad names and a repeat, with the flag', () => {
    const cli = { rewrite: ['SIGTERM', 'SIGTERM:QUITE', 'STOP:none', 'TERM:QUIT', 'SIGTERM:INT', ':none'], app: ['job'] };
    expect(problemsOf({ cli })).toEqual([
      '--rewrite SIGTERM: expected FROM:TO, e.g. --rewrite SIGTERM:SIGQUIT or 15:3, or --rewrite SIGHUP:none (1:0) to drop a signal',
      '--rewrite SIGTERM:QUITE: "QUITE" is not a signal (did you mean SIGQUIT?); use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional), or none (or 0) to drop SIGTERM',
      '--rewrite STOP:none: SIGSTOP cannot be caught, so it cannot be rewritten',
      '--rewrite SIGTERM:INT: SIGTERM is already rewritten (see --rewrite TERM:QUIT)',
      '--rewrite :none: "" is not a signal; use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional)',
    ]);
  });
});

describe('parseSignal', () => {
  it.each([
    ['SIGQUIT', 'SIGQUIT'],
    ['quit', 'SIGQUIT'],
    ['Quit', 'SIGQUIT'],
    ['sigint', 'SIGINT'],
    ['TERM', 'SIGTERM'],
    ['KILL', 'SIGKILL'],
    ['SIGWINCH', 'SIGWINCH'],
  ])('reads %j as %s', (text, signal) => {
    expect(parseSignal(text)).toEqual({ ok: true, value: signal });
  });

  it.each(['SIGFOO', 'TERMINATE', '', 'SIG', 'SIGX'])('rejects %j as not a signal, suggesting none: none is one edit away', (text) => {
    expect(parseSignal(text)).toEqual({
      ok: false,
      message: `${JSON.stringify(text)} is not a signal; use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional)`,
    });
  });

  it.each([
    [' TERM', 'SIGTERM'],
    ['SIGTERM ', 'SIGTERM'],
    ['SIGKIL', 'SIGKILL'],
    ['trem', 'SIGTERM'],
    ['SIGHPU', 'SIGHUP'],
    ['usr3', 'SIGUSR1'],
  ])('rejects %j as not a signal, suggesting %s', (text, meant) => {
    expect(parseSignal(text)).toEqual({
      ok: false,
      message: `${JSON.stringify(text)} is not a signal (did you mean ${meant}?); use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional)`,
    });
  });

  it('refuses a signal number, which differs between architectures', () => {
    expect(parseSignal('3')).toEqual({ ok: false, message: '3 is a signal number; give the signal by name, e.g. SIGQUIT' });
    expect(parseSignal('15')).toEqual({ ok: false, message: '15 is a signal number; give the signal by name, e.g. SIGQUIT' });
    expect(parseSignal('9x')).toEqual({
      ok: false,
      message: '"9x" is not a signal; use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional)',
    });
  });
});

describe('signals that can never be forwarded, caught or stop a process', () => {
  it('are refused as the source of a rewrite, with the reason, in the file and in flags', () => {
    const yaml = appOnlyWith('rewrite: { CHLD: TERM, SIGSEGV: TERM, PIPE: none }');
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:1:12 rewrite.CHLD: SIGCHLD tells sidecar-init that a process exited and is never passed on, so it cannot be rewritten',
      'demo.yaml:1:24 rewrite.SIGSEGV: SIGSEGV is not passed on to the app, so it cannot be rewritten',
      'demo.yaml:1:39 rewrite.PIPE: SIGPIPE is not passed on to the app, so it cannot be rewritten',
    ]);
    const cli = { rewrite: ['SIGCHLD:SIGTERM', 'SIGKILL:SIGTERM', 'SIGSTOP:none', 'SIGTSTP:SIGSTOP'], app: ['job'] };
    expect(problemsOf({ cli })).toEqual([
      '--rewrite SIGCHLD:SIGTERM: SIGCHLD tells sidecar-init that a process exited and is never passed on, so it cannot be rewritten',
      '--rewrite SIGKILL:SIGTERM: SIGKILL cannot be caught, so it cannot be rewritten',
      '--rewrite SIGSTOP:none: SIGSTOP cannot be caught, so it cannot be rewritten',
    ]);
  });

  it('are refused as a stop signal, with the reason, in the file and in flags', () => {
    const yaml = `
      processes:
        - { name: proxy, role: sidecar, command: envoy, stopSignal: SIGCHLD }
        - { name: job, role: app, command: job, stopSignal: stop }
    `;
    expect(problemsOf({ yaml, cli: { stopSignal: ['proxy=CONT', 'job=SIGTTIN'] } })).toEqual([
      'demo.yaml:2:51 processes[0].stopSignal: SIGCHLD is ignored unless handled, and means "a child exited", so it cannot stop a process; use e.g. SIGTERM, SIGINT or SIGQUIT',
      'demo.yaml:3:43 processes[1].stopSignal: SIGSTOP pauses a process instead of ending it, so it cannot stop a process; use e.g. SIGTERM, SIGINT or SIGQUIT',
      '--stop-signal proxy=CONT: SIGCONT is ignored unless handled, and means "continue", so it cannot stop a process; use e.g. SIGTERM, SIGINT or SIGQUIT',
      '--stop-signal job=SIGTTIN: SIGTTIN pauses a process instead of ending it, so it cannot stop a process; use e.g. SIGTERM, SIGINT or SIGQUIT',
    ]);
    expect(load({ cli: { stopSignal: ['app=SIGKILL'], app: ['job'] } }).processes[0]!.stopSignal).toBe('SIGKILL');
  });

  it.each([
    ['URG', 'SIGURG is ignored unless handled, and means "urgent socket data"'],
    ['TSTP', 'SIGTSTP pauses a process instead of ending it'],
    ['TTOU', 'SIGTTOU pauses a process instead of ending it'],
  ])('refuses %s as a stop signal, saying why', (text, why) => {
    expect(parseStopSignal(text)).toEqual({
      ok: false,
      message: `${why}, so it cannot stop a process; use e.g. SIGTERM, SIGINT or SIGQUIT`,
    });
  });

  it('names the type expected of a stop signal that is neither a name nor a number, and of a rewrite target', () => {
    const yaml = `
      rewrite: { SIGTERM: 3, SIGHUP: [QUIT] }
      processes:
        - { name: job, role: app, command: job, stopSignal: true }
    `;
    expect(problemsOf({ yaml })).toEqual([
      'demo.yaml:1:24 rewrite.SIGHUP: expected a signal name or number, or none, got ["QUIT"]',
      'demo.yaml:3:43 processes[0].stopSignal: expected a string, got true',
    ]);
  });
});

describe('parentDeathSignal', () => {
  it('is none by default, and read by name from the file, --parent-death-signal and its variable', () => {
    expect(load({ yaml: appOnlyWith('grace: 5s') }).parentDeathSignal).toBeUndefined();
    expect(load({ yaml: appOnlyWith('parentDeathSignal: term') }).parentDeathSignal).toBe('SIGTERM');
    expect(load({ yaml: appOnlyWith('parentDeathSignal: TERM'), cli: { parentDeathSignal: 'SIGHUP' } }).parentDeathSignal).toBe('SIGHUP');
  });

  it.each(['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR1'])('takes %s, a signal sidecar-init handles', (signal) => {
    expect(parseParentDeathSignal(signal)).toEqual({ ok: true, value: signal });
  });

  it('refuses SIGKILL, which would leave every process running, a signal sidecar-init does not handle, and a number', () => {
    const use = "use SIGTERM (a teardown, as for a pod's stop) or a signal passed on to the app, such as SIGHUP";
    expect(parseParentDeathSignal('KILL')).toEqual({
      ok: false,
      message: `SIGKILL would end sidecar-init at once, leaving the processes it started running; ${use}`,
    });
    expect(parseParentDeathSignal('SIGSEGV')).toEqual({ ok: false, message: `sidecar-init does not handle SIGSEGV; ${use}` });
    expect(problemsOf({ yaml: appOnlyWith('parentDeathSignal: 15'), cli: { parentDeathSignal: 'TREM' } })).toEqual([
      'demo.yaml:1:1 parentDeathSignal: 15 is a signal number; give the signal by name, e.g. SIGQUIT',
      '--parent-death-signal TREM: "TREM" is not a signal (did you mean SIGTERM?); use a name such as SIGTERM, SIGQUIT or INT (any case, SIG optional)',
    ]);
  });
});

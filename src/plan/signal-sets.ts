import { constants } from 'node:os';

// Which signals stop sidecar-init and which it passes on to the app: read by
// the config (which signals a rewrite may name), the reducer (a stop signal
// begins termination) and the signal subscription, from this one list.

/** SIGTERM and SIGINT start termination; see the lifecycle. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * Passed on to the app unchanged. PID 1 has no default signal actions, so a
 * signal without a listener would simply vanish. SIGUSR1 matters twice: with no
 * listener, Node opens its inspector on 127.0.0.1:9229 when it arrives. Left
 * out: SIGKILL/SIGSTOP (cannot be caught), SIGCHLD (the reaper's), synchronous
 * faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS: Node's own), SIGABRT
 * (and SIGIOT, its other name: sidecar-init's own abort), SIGSTKFLT (Linux never
 * sends it), SIGPIPE (Node ignores it), SIGPROF (the profiler's), SIGPOLL (the
 * same number as SIGIO). signal-sets.test.ts checks the list against the system's.
 */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = [
  'SIGHUP',
  'SIGQUIT',
  'SIGUSR1',
  'SIGUSR2',
  'SIGWINCH',
  'SIGALRM',
  'SIGCONT',
  'SIGTSTP',
  'SIGTTIN',
  'SIGTTOU',
  'SIGURG',
  'SIGVTALRM',
  'SIGXCPU',
  'SIGXFSZ',
  'SIGIO',
  'SIGPWR',
];

/** Every signal the supervisor listens for: the ones that stop it and the ones it passes on. */
export const HANDLED_SIGNALS: readonly NodeJS.Signals[] = [...STOP_SIGNALS, ...FORWARDED_SIGNALS];

/** Sent to stop a process, not to end it; SIGCONT undoes them. */
const JOB_CONTROL_SIGNALS: readonly NodeJS.Signals[] = ['SIGSTOP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU', 'SIGCONT'];

/**
 * Whether a SIGCONT must follow `signal` when it is sent to end a process. A
 * stopped process (SIGSTOP, Ctrl-Z, an app that ran `kill -STOP $$`) keeps
 * every signal but SIGKILL pending until it is continued, so a SIGTERM alone
 * would wait out the whole grace and end in SIGKILL (137, not 143); systemd
 * sends SIGCONT after its stop signal for the same reason. Sent after the
 * signal, never before: continued first, the process could stop again before
 * the signal is there, while a pending signal is delivered as soon as it runs.
 * Not after SIGKILL, which ends a stopped process as it is, nor after the
 * job-control signals, which are sent to stop, not to end.
 */
export function needsContinue(signal: NodeJS.Signals): boolean {
  return signal !== 'SIGKILL' && !JOB_CONTROL_SIGNALS.includes(signal);
}

/** SIGTERM and SIGINT end the pod; every other handled signal is forwarded to the app. */
export function isStopSignal(signal: NodeJS.Signals): boolean {
  return STOP_SIGNALS.includes(signal);
}

/**
 * Linux's number of each signal Node names, the first name for a number two
 * share (SIGABRT, not SIGIOT; SIGIO, not SIGPOLL, which FORWARDED_SIGNALS
 * leaves out); built once, on first use.
 */
let signalsByNumber: Map<number, NodeJS.Signals> | undefined;

/** The signal of a number (15: SIGTERM), as the kernel numbers it on x64 and arm64 (the same generic numbering); undefined for a number Node names no signal for. */
export function signalOfNumber(number: number): NodeJS.Signals | undefined {
  if (signalsByNumber === undefined) {
    signalsByNumber = new Map();
    for (const [name, value] of Object.entries(constants.signals))
      if (!signalsByNumber.has(value)) signalsByNumber.set(value, name as NodeJS.Signals);
  }
  return signalsByNumber.get(number);
}

/** SIGTERM and SIGINT start termination; see the lifecycle. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * Passed on to the app unchanged. PID 1 has no default signal actions, so a
 * signal without a listener would simply vanish. SIGUSR1 matters twice: with no
 * listener, Node opens its inspector on 127.0.0.1:9229 when it arrives. Left
 * out: SIGKILL/SIGSTOP (cannot be caught), SIGCHLD (the reaper's), synchronous
 * faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL: Node's own), SIGPIPE (Node ignores
 * it), SIGPROF (the profiler's), SIGPOLL (the same number as SIGIO).
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

/** Listens for every signal the supervisor handles; returns the unsubscribe. */
export function subscribeSignals(handler: (signal: NodeJS.Signals) => void): () => void {
  const signals = HANDLED_SIGNALS;
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}

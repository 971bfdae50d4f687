import { HANDLED_SIGNALS } from '../plan/signal-sets.ts';

/** Listens for every signal the supervisor handles; returns the unsubscribe. */
export function subscribeSignals(handler: (signal: NodeJS.Signals) => void): () => void {
  const signals = HANDLED_SIGNALS;
  for (const signal of signals) process.on(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
  };
}

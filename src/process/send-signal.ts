import process from 'node:process';
import type { SignalScope } from './child.ts';
import { errorCode } from '../support/error-code.ts';

/**
 * A signal to a child or its group, whichever way it was started
 * (spawn-native.ts, spawn-piped.ts, the terminal's). False when the target is already gone (ESRCH).
 */
export function sendSignal(pid: number, signal: NodeJS.Signals, scope: SignalScope, running: boolean): boolean {
  // Once the child is reaped its pid may be reused, so the process alone is
  // never signaled after exit. Its group id stays reserved while any member
  // lives, so signaling the group still reaches descendants left behind.
  if (scope === 'process' && !running) return false;
  try {
    return process.kill(scope === 'group' ? -pid : pid, signal);
  } catch (error) {
    if (errorCode(error) === 'ESRCH') return false;
    throw error;
  }
}

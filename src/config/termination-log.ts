import type { TerminationLog } from '../plan/plan.ts';
import { fail, ok, type Result } from './result.ts';
import { quote } from './message-text.ts';

// --termination-log, terminationLog and SIDECAR_INIT_TERMINATION_LOG: where
// the one-line reason for the exit is written, for Kubernetes to show as the
// container's termination message. By default its own path, when the kubelet
// has mounted it.

/** Kubernetes' default terminationMessagePath. */
export const DEFAULT_TERMINATION_LOG = '/dev/termination-log';
const NONE = 'none';
const EXAMPLE = `use an absolute path, e.g. ${DEFAULT_TERMINATION_LOG}, or ${NONE}`;

export const DEFAULT_TERMINATION_LOG_TARGET: TerminationLog = { kind: 'if-present', path: DEFAULT_TERMINATION_LOG };

export function parseTerminationLog(text: string): Result<TerminationLog> {
  if (text === NONE) return ok({ kind: 'none' });
  if (!text.startsWith('/')) return fail(`${quote(text)} is not an absolute path; ${EXAMPLE}`);
  return ok({ kind: 'file', path: text });
}

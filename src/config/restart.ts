import * as z from 'zod';
import { formatDuration, positiveDuration } from './duration.ts';
import { isRestartPolicy, RESTART_POLICIES } from '../plan/literals.ts';
import { DEFAULTS, type RestartPolicy, type RestartSpec, type Role } from '../plan/plan.ts';
import { fail, ok, type Result } from '../support/result.ts';
import { quote } from '../support/message-text.ts';
import { didYouMean } from '../support/closest-match.ts';
import { mapping, MAX_RESTARTS_RANGE, wholeNumber } from './schema-fields.ts';
import { builtOnFirstUse } from '../support/built-on-first-use.ts';

// When a process is restarted: its policy, the backoff between restarts and a
// limit on their number.

export const RestartPolicySchema = builtOnFirstUse(() => z.enum(RESTART_POLICIES));

export const MaxRestartsSchema = builtOnFirstUse(() =>
  wholeNumber('After this many restarts the process counts as failed; no limit when left out.', MAX_RESTARTS_RANGE),
);

type Backoff = Pick<RestartSpec, 'initialBackoffMs' | 'maxBackoffMs' | 'resetAfterMs'>;

export const BackoffSchema = builtOnFirstUse(() =>
  mapping({
    initial: positiveDuration(
      'The delay before the second restart (the first is immediate); it doubles from here.',
      DEFAULTS.backoff.initialBackoffMs,
    ).optional(),
    max: positiveDuration('The longest delay between restarts.', DEFAULTS.backoff.maxBackoffMs).optional(),
    resetAfter: positiveDuration(
      'A run at least this long resets the delay and the restart count.',
      DEFAULTS.backoff.resetAfterMs,
    ).optional(),
  }).transform((raw, context): Backoff => {
    const backoff = {
      initialBackoffMs: raw.initial ?? DEFAULTS.backoff.initialBackoffMs,
      maxBackoffMs: raw.max ?? DEFAULTS.backoff.maxBackoffMs,
      resetAfterMs: raw.resetAfter ?? DEFAULTS.backoff.resetAfterMs,
    };
    if (backoff.initialBackoffMs > backoff.maxBackoffMs) {
      // At the value that was written: initial, or a max below the default initial.
      const initial = `initial (${formatDuration(backoff.initialBackoffMs)}${raw.initial === undefined ? ', the default' : ''})`;
      const max = `max (${formatDuration(backoff.maxBackoffMs)}${raw.max === undefined ? ', the default' : ''})`;
      const message = `${initial} is longer than ${max}; the delay starts at initial and doubles up to max`;
      context.issues.push({ code: 'custom', message, input: raw, path: [raw.initial === undefined ? 'max' : 'initial'] });
    }
    return backoff;
  }),
);

/** A sidecar restarts on any exit, as Kubernetes restarts a sidecar; an init step and the app run once (DEFAULTS). */
export function defaultRestartPolicy(role: Role): RestartPolicy {
  return DEFAULTS.restartPolicy[role];
}

export function createRestart(role: Role, raw: { restart?: RestartPolicy; backoff?: Backoff; maxRestarts?: number } = {}): RestartSpec {
  return {
    policy: raw.restart ?? defaultRestartPolicy(role),
    initialBackoffMs: raw.backoff?.initialBackoffMs ?? DEFAULTS.backoff.initialBackoffMs,
    maxBackoffMs: raw.backoff?.maxBackoffMs ?? DEFAULTS.backoff.maxBackoffMs,
    resetAfterMs: raw.backoff?.resetAfterMs ?? DEFAULTS.backoff.resetAfterMs,
    maxRestarts: raw.maxRestarts,
  };
}

/**
 * An init step is done when it exits 0, so restarting it then would never let
 * the sequence go on: `always` is a mistake there, `on-failure` is the retry.
 * Shared by the file and `--restart`.
 */
export function checkPolicyForRole(policy: RestartPolicy, role: Role | undefined): string | undefined {
  if (policy !== 'always' || role !== 'init') return undefined;
  return 'an init step is done once it exits 0, so it cannot restart always; use on-failure to retry a failing step';
}

/** POLICY of `--restart NAME=POLICY`. */
export function parseRestartPolicy(text: string): Result<RestartPolicy> {
  if (isRestartPolicy(text)) return ok(text);
  return fail(`${quote(text)} is not a restart policy${didYouMean(text, RESTART_POLICIES)}; use ${RESTART_POLICIES.join(', ')}`);
}

import { describe, expect, test } from 'vitest';
import { load } from '../../test/support/config.ts';
import { codeSpans, plainCell, readPage, tableWithHeader } from '../../test/support/docs.ts';
import { parseDuration } from '../config/duration.ts';
import { DEFAULTS } from './plan.ts';

// DEFAULTS against what docs/configuration.md promises the user, read from its
// two reference tables (the flags of a run, the keys of the file), so that a
// default changed in one place and not the other fails here.

const FLAGS = tableWithHeader('docs/configuration.md', ['flag', 'meaning']);
const KEYS = tableWithHeader('docs/configuration.md', ['key', 'where', 'meaning (default)']);

/** The meaning of the flag's row: the row whose first cell starts with the flag. */
function flagMeaning(flag: string): string {
  const row = FLAGS.rows.find((cells) => plainCell(cells[0]!).startsWith(`${flag} `));
  if (row === undefined) throw new Error(`docs/configuration.md has no row for ${flag}`);
  return row[1]!;
}

/** The meaning (default) of the key's row (a row may name several keys). */
function keyMeaning(key: string): string {
  const row = KEYS.rows.find((cells) => codeSpans(cells[0]!).includes(key));
  if (row === undefined) throw new Error(`docs/configuration.md has no row for the key ${key}`);
  return row[2]!;
}

/** The first match of the pattern's group in the text, or a failure that names what was looked for. */
function found(text: string, pattern: RegExp): string {
  const match = pattern.exec(text);
  if (match?.[1] === undefined) throw new Error(`${pattern} is not in: ${text}`);
  return match[1];
}

/** `name: value` pairs of a cell's `{...}`: `{probe, period: 100ms}` → {period: '100ms'}. */
function fields(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/(\w+): ([^,{}\s]+)/g)].map((match) => [match[1]!, match[2]!]));
}

function ms(text: string | undefined): number {
  const result = parseDuration(text ?? '');
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

describe('DEFAULTS is what docs/configuration.md says', () => {
  test('grace, the log level, the output, the termination log and --until', () => {
    expect(DEFAULTS.graceMs).toBe(ms(found(keyMeaning('grace'), /\(`([^`]+)`\)/)));
    expect(DEFAULTS.graceMs).toBe(ms(found(flagMeaning('--grace'), /default `([^`]+)`/)));
    expect(DEFAULTS.logLevel).toBe(found(flagMeaning('--log-level'), /`(\w+)` \(default\)/));
    expect(DEFAULTS.output).toBe(found(flagMeaning('--output'), /`(\w+)` \(default\)/));
    expect(DEFAULTS.output).toBe(found(keyMeaning('output'), /top level \(`(\w+)`\)/));
    expect(DEFAULTS.terminationLog).toBe(found(flagMeaning('--termination-log'), /default `([^`]+)`/));
    expect(DEFAULTS.untilState).toBe(found(flagMeaning('--until'), /\(default `(\w+)`\)/));
  });

  test('the restart policy of each role that is started, and fatal', () => {
    const restart = keyMeaning('restart');
    expect(DEFAULTS.restartPolicy.sidecar).toBe(found(restart, /sidecar `([\w-]+)`/));
    expect(DEFAULTS.restartPolicy.init).toBe(found(restart, /init step and app `([\w-]+)`/));
    expect(DEFAULTS.restartPolicy.app).toBe(found(restart, /init step and app `([\w-]+)`/));
    expect(DEFAULTS.restartPolicy.sidecar).toBe(found(flagMeaning('--restart'), /sidecars `([\w-]+)`/));
    expect(DEFAULTS.restartPolicy.init).toBe(found(flagMeaning('--restart'), /init steps and the app `([\w-]+)`/));
    expect(DEFAULTS.fatal).toBe(JSON.parse(found(keyMeaning('fatal'), /\(`(\w+)`\)$/)));
  });

  test('readiness, liveness, backoff and hooks', () => {
    const readiness = fields(keyMeaning('readiness'));
    expect(DEFAULTS.readiness).toEqual({
      periodMs: ms(readiness.period),
      timeoutMs: ms(readiness.timeout),
      deadlineMs: ms(readiness.deadline),
      periodAfterStartMs: ms(readiness.periodAfterStart),
    });
    const liveness = fields(keyMeaning('liveness'));
    expect(DEFAULTS.liveness).toEqual({
      periodMs: ms(liveness.period),
      timeoutMs: ms(liveness.timeout),
      failureThreshold: Number(liveness.failureThreshold),
      initialDelayMs: ms(liveness.initialDelay),
    });
    const backoff = fields(keyMeaning('backoff'));
    expect(DEFAULTS.backoff).toEqual({
      initialBackoffMs: ms(backoff.initial),
      maxBackoffMs: ms(backoff.max),
      resetAfterMs: ms(backoff.resetAfter),
    });
    const hook = fields(keyMeaning('postStart'));
    expect(DEFAULTS.hook).toEqual({ timeoutMs: ms(hook.timeout), httpMethod: hook.method });
  });

  test("an external's match, stop and flags", () => {
    expect(DEFAULTS.external).toEqual({
      maxMatches: Number(found(keyMeaning('match'), /`maxMatches` \((\d+)\)/)),
      stopMethod: fields(keyMeaning('stop')).method,
      stopOnFailure: JSON.parse(found(keyMeaning('stopOnFailure'), /\(`(\w+)`\)$/)),
      optional: JSON.parse(found(keyMeaning('optional'), /\(`(\w+)`\)$/)),
      allowHost: JSON.parse(found(keyMeaning('allowHost'), /\(`(\w+)`\)$/)),
    });
  });
});

describe('DEFAULTS the docs leave to what they say of the role', () => {
  test('an external, which is never started, is never restarted either: its plan says never', () => {
    expect(readPage('docs/configuration.md')).toContain('An external is never started');
    // `plan --json` prints every process's restart, an external's too (processes[].restart).
    const plan = load({ cli: { processes: [{ flag: '--external', value: 'mesh=istio' }], app: ['job'] } });
    expect(plan.processes.map((spec) => [spec.name, spec.restart.policy])).toEqual([
      ['mesh', 'never'],
      ['app', 'never'],
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { appOnlyWith, load } from '../../test/support/config.ts';
import { ConfigError, formatConfigError, MAX_LISTED_PROBLEMS } from './config-error.ts';

// What sidecar-init writes to stderr for a bad configuration: a count, what it
// means for what was asked, and one line a problem, at most fifty.

function errorOf(input: Parameters<typeof load>[0]): ConfigError {
  try {
    load(input);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError, but the plan was built');
}

describe('formatConfigError', () => {
  it('counts the problems and says what they mean for a run, validate, plan and the webhook', () => {
    const one = errorOf({ cli: { grace: 'x', app: ['job'] } });
    const two = errorOf({ cli: { grace: 'x', logLevel: 'loud', app: ['job'] } });
    const grace = '  --grace x: "x" is not a duration; use e.g. 500ms, 5s, 1m\n';
    const level = '  --log-level loud: "loud" is not a log level; use trace, debug, info, warn, error, fatal, silent\n';
    expect(formatConfigError(two, 'run')).toBe(`sidecar-init: 2 configuration problems; nothing was started:\n${grace}${level}`);
    expect(formatConfigError(two, 'validate')).toBe(
      `sidecar-init: 2 configuration problems; the configuration is not valid:\n${grace}${level}`,
    );
    expect(formatConfigError(two, 'plan')).toBe(`sidecar-init: 2 configuration problems; no plan to print:\n${grace}${level}`);
    expect(formatConfigError(one, 'injected')).toMatch(
      /^sidecar-init: 1 configuration problem; a pod given these flags would not start:\n {2}--grace x: /,
    );
  });

  it(`lists the first ${MAX_LISTED_PROBLEMS} problems in file order and counts the rest`, () => {
    const keys = Array.from({ length: MAX_LISTED_PROBLEMS + 10 }, (_, index) => `k${index}: 1`);
    const error = errorOf({ yaml: appOnlyWith(keys.join('\n  ')) });
    expect(error.total).toBe(MAX_LISTED_PROBLEMS + 10);
    expect(error.problems.map((problem) => problem.location)).toEqual(
      keys.slice(0, MAX_LISTED_PROBLEMS).map((_, index) => `demo.yaml:${index + 1}:1 k${index}`),
    );
    const lines = formatConfigError(error, 'validate').trimEnd().split('\n');
    expect(lines[0]).toBe(`sidecar-init: ${MAX_LISTED_PROBLEMS + 10} configuration problems; the configuration is not valid:`);
    expect(lines).toHaveLength(MAX_LISTED_PROBLEMS + 2);
    expect(lines.at(-1)).toBe('  ... and 10 more');
    expect(error.message.split('\n').at(-1)).toBe('... and 10 more');
  });
});

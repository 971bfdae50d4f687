import { describe, expect, it } from 'vitest';
import { load, problemsOf } from '../../test/support/config.ts';
import { parseArgs } from './parse-args.ts';

function cliOf(argv: string[], env: NodeJS.ProcessEnv) {
  const command = parseArgs(argv, env);
  if (command.kind !== 'run') throw new Error(`expected a run, got ${JSON.stringify(command)}`);
  return command.cli;
}

describe('--announce and --until', () => {
  it('come from their flags or SIDECAR_INIT_ANNOUNCE and SIDECAR_INIT_UNTIL, the flag first', () => {
    const plan = load({ cli: cliOf(['--announce', '/handoff/app', 'job'], { SIDECAR_INIT_UNTIL: '/handoff/proxy=ready' }) });
    expect(plan.announce).toBe('/handoff/app');
    expect(plan.until).toEqual({ file: '/handoff/proxy', state: 'ready' });
    const flagFirst = load({ cli: cliOf(['--until', '/flag/proxy', 'job'], { SIDECAR_INIT_UNTIL: '/env/proxy=ready' }) });
    expect(flagFirst.until).toEqual({ file: '/flag/proxy', state: 'exited' });
  });

  it('name the variable a bad state came from', () => {
    expect(problemsOf({ cli: cliOf(['job'], { SIDECAR_INIT_UNTIL: '/handoff/proxy=gone' }) })).toEqual([
      'SIDECAR_INIT_UNTIL /handoff/proxy=gone: "gone" is not an announced state; use starting, ready, stopping or exited (after the last "=" of FILE=STATE)',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { load, problemsOf } from '../../test/support/config.ts';
import { parseArgs } from './parse-args.ts';

const APP_ONLY = '\n  processes: [{ name: job, role: app, command: job }]';

function planOf(argv: string[], env: NodeJS.ProcessEnv, yaml = APP_ONLY) {
  const command = parseArgs(argv, env);
  if (command.kind !== 'run') throw new Error(`expected a run, got ${JSON.stringify(command)}`);
  return load({ yaml, cli: command.cli });
}

describe('the termination log', () => {
  it("is Kubernetes' path, when it is there, unless something else is given", () => {
    expect(planOf([], {}).terminationLog).toEqual({ kind: 'if-present', path: '/dev/termination-log' });
  });

  it('comes from the flag over the variable over the file, or is none', () => {
    const yaml = `\n  terminationLog: /run/file${APP_ONLY}`;
    expect(planOf([], {}, yaml).terminationLog).toEqual({ kind: 'file', path: '/run/file' });
    expect(planOf([], { SIDECAR_INIT_TERMINATION_LOG: '/run/env' }, yaml).terminationLog).toEqual({ kind: 'file', path: '/run/env' });
    const flag = ['--termination-log', '/run/flag'];
    expect(planOf(flag, { SIDECAR_INIT_TERMINATION_LOG: '/run/env' }, yaml).terminationLog).toEqual({ kind: 'file', path: '/run/flag' });
    expect(planOf(['--termination-log', 'none'], {}).terminationLog).toEqual({ kind: 'none' });
  });

  it('must be an absolute path, named where it was written', () => {
    const command = parseArgs([], { SIDECAR_INIT_TERMINATION_LOG: 'termination.txt' });
    if (command.kind !== 'run') throw new Error('expected a run');
    expect(problemsOf({ yaml: `\n  terminationLog: relative${APP_ONLY}`, cli: command.cli })).toEqual([
      'demo.yaml:1:1 terminationLog: "relative" is not an absolute path; use an absolute path, e.g. /dev/termination-log, or none',
      'SIDECAR_INIT_TERMINATION_LOG termination.txt: "termination.txt" is not an absolute path; use an absolute path, e.g. /dev/termination-log, or none',
    ]);
  });
});

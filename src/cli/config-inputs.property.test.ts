import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadPlan } from '../config/load-plan.ts';
import { parseArgs } from './parse-args.ts';
import { CONFIG_FILE, type ConfigInput, configInputs } from '../../test/support/config-inputs.ts';
import { propertyParameters } from '../../test/support/property.ts';

// Random YAML documents, flag sets and SIDECAR_INIT_* variables through the
// path main.ts takes (parseArgs, then loadPlan with the file read from
// memory): every outcome is a plan, a usage error, or a list of problems that
// each say where (FILE:LINE:COL and the field, or the flag and its value).
// Anything else thrown is an internal error, the bug this test hunts. A
// failure prints its seed and path; test/support/property.ts says how to
// replay it.

const RUNS = 4_000;

/** Where a problem is: the file with line and column (and the field), or the flag, variable or operands it came from. */
const LOCATED = new RegExp(`^(${CONFIG_FILE.replace('.', '\\.')}:\\d+:\\d+( |$)|--|SIDECAR_INIT_|-- |command line$)`);

type Outcome =
  | { readonly kind: 'usage'; readonly output: string }
  | { readonly kind: 'plan' }
  | { readonly kind: 'problems'; readonly locations: string[] };

/** argv, variables and file as main.ts takes them: parseArgs, then loadPlan reading the file from memory. */
function configure({ mode, withFile, yaml, flags, app, env }: ConfigInput): Outcome {
  const argv = [...mode, ...(withFile ? ['-c', CONFIG_FILE] : []), ...flags.flat(), ...app];
  const variables = Object.fromEntries(Object.entries(env).map(([name, value]) => [`SIDECAR_INIT_${name}`, value]));
  const command = parseArgs(argv, variables);
  if (command.kind === 'exit') {
    if (command.code !== 0 && command.output.trim() === '') throw new Error(`usage error ${command.code} without a message`);
    return { kind: 'usage', output: command.output };
  }
  // Commands that read no config (install DIR, ctl) have nothing to check here.
  if (command.kind !== 'run' && command.kind !== 'validate' && command.kind !== 'plan') return { kind: 'usage', output: command.kind };
  const readFile = (path: string) => {
    if (path !== CONFIG_FILE) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return yaml;
  };
  let plan: ReturnType<typeof loadPlan>;
  try {
    plan = loadPlan({ ...command, readFile, identity: command.kind === 'run' ? { uid: 0, gid: 0 } : undefined });
  } catch (error) {
    const problems = (error as { code?: unknown; problems?: unknown }).problems;
    if ((error as { code?: unknown }).code !== 'CONFIG_INVALID' || !Array.isArray(problems)) throw error;
    if (problems.length === 0) throw new Error('a config error without problems');
    for (const problem of problems as { location: string; text: string }[]) {
      if (!LOCATED.test(problem.location)) throw new Error(`a problem that does not say where: ${problem.text}`);
    }
    return { kind: 'problems', locations: problems.map((problem: { location: string }) => problem.location) };
  }
  const names = plan.processes.map((spec) => spec.name);
  if (plan.processes.at(-1)?.role !== 'app' || plan.processes.filter((spec) => spec.role === 'app').length !== 1)
    throw new Error(`a plan whose app is not exactly one, last: ${names.join(', ')}`);
  if (new Set(names).size !== names.length) throw new Error(`a plan with a name twice: ${names.join(', ')}`);
  for (const spec of plan.processes) {
    const unknown = spec.after.filter((name) => !names.includes(name));
    if (unknown.length > 0) throw new Error(`${spec.name} waits for unknown ${unknown.join(', ')}`);
  }
  return { kind: 'plan' };
}

const fileOnly = (yaml: string): ConfigInput => ({ mode: [], withFile: true, yaml, flags: [], app: [], env: {} });

describe('configuration from random files, flags and variables', () => {
  it('gives a plan or problems that each say where, never an internal error', () => {
    fc.assert(
      fc.property(configInputs, (input) => {
        configure(input);
      }),
      propertyParameters(RUNS),
    );
    // Thousands of configurations: some 20 s alone, over a minute on a loaded machine; the bound only says it ends.
  }, 300_000);

  // Shapes random text rarely reaches: each is answered with located problems, not a crash or a hang.
  it.each([
    ['flow collections nested 20,000 deep', `${'['.repeat(20_000)}${']'.repeat(20_000)}`],
    ['block lists nested 3,000 deep', Array.from({ length: 3_000 }, (_, depth) => `${' '.repeat(depth)}- `).join('\n')],
    [
      'an alias bomb ("billion laughs")',
      [
        'a: &a [x, x, x, x, x, x, x, x, x]',
        ...'bcdef'.split('').map((name, index) => `${name}: &${name} [${Array(9).fill(`*${'abcde'[index]}`).join(', ')}]`),
        'processes: *f',
      ].join('\n'),
    ],
    ['a binary tag', 'processes: !!binary aGVsbG8='],
    ['a __proto__ key', 'processes:\n  - __proto__: { role: app }\n    name: app\n    command: ["true"]'],
  ])('answers %s with located problems', (_shape, yaml) => {
    expect(configure(fileOnly(yaml)).kind).toBe('problems');
  });

  // Found by the property above: YAML refused while building its value (not while parsing) had no line.
  it('names the line of an alias used before its anchor', () => {
    const yaml = ['processes:', '  - name: app', '    role: app', '    command: *later', '    env: &later {}', ''].join('\n');
    expect(configure(fileOnly(yaml))).toEqual({ kind: 'problems', locations: [`${CONFIG_FILE}:4:14`] });
  });

  it('names the line of a merge key whose value is not a mapping', () => {
    const yaml = ['processes:', '  - name: app', '    role: app', '    command: ["true"]', '    <<: 3', ''].join('\n');
    expect(configure(fileOnly(yaml))).toEqual({ kind: 'problems', locations: [`${CONFIG_FILE}:5:5`] });
  });
});

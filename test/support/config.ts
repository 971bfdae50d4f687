// Helpers for the config tests: YAML written inline, loaded as "demo.yaml".
import { EMPTY_CLI_INPUT, type CliInput } from '../../src/config/flags.ts';
import { GLOBAL_OPTION_NAMES, type GivenOptions, type GlobalOption } from '../../src/config/global-options.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadPlan } from '../../src/config/load-plan.ts';
import type { Plan } from '../../src/plan/plan.ts';

export const FILE = 'demo.yaml';

/** Strips the first newline and the common indentation, so line 1 is the first line written. */
export function dedent(text: string): string {
  const lines = text
    .replace(/^\n/, '')
    .replace(/\n\s*$/, '\n')
    .split('\n');
  const indent = Math.min(...lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)![0].length));
  return lines.map((line) => line.slice(indent)).join('\n');
}

export interface LoadInput {
  readonly yaml?: string;
  /** The command line; a global option may be written at the top, as if given by its flag: { grace: '5s' }. */
  readonly cli?: Partial<CliInput> & GivenOptions;
}

/** A CliInput from a test's shorthand, global options moved into `options`. */
export function cliInput(cli: Partial<CliInput> & GivenOptions = {}): CliInput {
  const options: Record<string, unknown> = { ...cli.options };
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(cli)) {
    if (GLOBAL_OPTION_NAMES.includes(key as GlobalOption)) options[key] = value;
    else if (key !== 'options') rest[key] = value;
  }
  return { ...EMPTY_CLI_INPUT, ...rest, options: options as GivenOptions };
}

export function load({ yaml, cli }: LoadInput): Plan {
  return loadPlan({
    cli: cliInput(cli),
    configFile: yaml === undefined ? undefined : FILE,
    readFile: () => dedent(yaml ?? ''),
  });
}

/** The reported lines; fails the test when the input is valid. */
export function problemsOf(input: LoadInput): string[] {
  try {
    load(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.text);
    throw error;
  }
  throw new Error('expected a ConfigError, but the plan was built');
}

/** A minimal valid file to which a test adds one thing. */
export const APP_ONLY = `
  processes:
    - name: job
      role: app
      command: python job.py
`;

/** APP_ONLY with a top-level `line` before it, on line 1. */
export function appOnlyWith(line: string): string {
  return `\n  ${line}${APP_ONLY}`;
}

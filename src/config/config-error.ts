import { formatLocation, formatProblem, positionOf, type ProblemContext } from './format-problem.ts';
import type { Position } from './locate.ts';
import type { Origin, Problem } from './problem.ts';

export interface ConfigProblem {
  readonly origin: Origin;
  /** "demo.yaml:12:7 processes[1].readiness.period" or "--ready proxy=tcp://x:" */
  readonly location: string;
  readonly message: string;
  /** The whole line as reported: `${location}: ${message}`, plus a related location. */
  readonly text: string;
}

/** Every problem in a configuration (file and flags together); the caller exits 2 without spawning. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    super(problems.map((problem) => problem.text).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** File problems first, in the order they appear in the file, then the command line's in the order given. */
export function createConfigError(problems: readonly Problem[], context: ProblemContext): ConfigError {
  const located = problems.map((problem, index) => ({ problem, index, position: positionOf(problem.origin, context) }));
  located.sort((a, b) => rank(a) - rank(b) || compareLines(a.position, b.position) || a.index - b.index);
  return new ConfigError(
    located.map(({ problem }) => ({
      origin: problem.origin,
      location: formatLocation(problem.origin, context),
      message: problem.message,
      text: formatProblem(problem, context),
    })),
  );
}

function rank({ problem }: { problem: Problem }): number {
  return problem.origin.kind === 'file' ? 0 : 1;
}

function compareLines(a: Position | undefined, b: Position | undefined): number {
  if (a === undefined || b === undefined) return 0;
  return a.line - b.line || a.col - b.col;
}

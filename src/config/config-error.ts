import { assertNever } from '../plan/assert-never.ts';
import type { Locator, Position } from './config-file.ts';
import type { Origin, PathSegment, Problem } from './problem.ts';
import { redactUrlsIn } from '../support/redact-url.ts';

// Problems become lines the user reads: `FILE:LINE:COL FIELD: message` or
// `--flag VALUE: message`. Positions in the file are resolved only here, so the
// steps that find problems need no YAML document.

/**
 * At most this many problems are listed, and a count of the rest: a file of a
 * hundred thousand unknown keys deserves an answer, not a hundred thousand lines.
 */
export const MAX_LISTED_PROBLEMS = 50;

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
  /** The first MAX_LISTED_PROBLEMS, in report order. */
  readonly problems: readonly ConfigProblem[];
  /** How many there are in all, listed or not. */
  readonly total: number;

  constructor(problems: readonly ConfigProblem[], total = problems.length) {
    super(listLines(problems, total).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
    this.total = total;
  }
}

/** The config file, when there is one, to turn field paths into positions. */
export interface ProblemContext {
  readonly file: string | undefined;
  readonly locate: Locator | undefined;
}

/** File problems first, in the order they appear in the file, then the command line's in the order given. */
export function createConfigError(problems: readonly Problem[], context: ProblemContext): ConfigError {
  const located = problems.map((problem, index) => ({ problem, index, position: positionOf(problem.origin, context) }));
  located.sort((a, b) => rank(a) - rank(b) || compareLines(a.position, b.position) || a.index - b.index);
  const listed = located.slice(0, MAX_LISTED_PROBLEMS).map(({ problem }) => ({
    origin: problem.origin,
    location: formatLocation(problem.origin, context),
    message: problem.message,
    text: formatProblem(problem, context),
  }));
  return new ConfigError(listed, problems.length);
}

/** What found the problems: a run, `validate`, `plan`, or the webhook checking the flags it would inject. */
export type ConfigCheck = 'run' | 'validate' | 'plan' | 'injected';

/** What the problems mean for what was asked: only a run starts anything, so only a run says nothing was. */
const OUTCOME: Readonly<Record<ConfigCheck, string>> = {
  run: 'nothing was started',
  validate: 'the configuration is not valid',
  plan: 'no plan to print',
  injected: 'a pod given these flags would not start',
};

/** What sidecar-init writes to stderr for the error. */
export function formatConfigError(error: ConfigError, check: ConfigCheck): string {
  const { total } = error;
  const lines = listLines(error.problems, total)
    .map((line) => `  ${line}\n`)
    .join('');
  return `sidecar-init: ${total} configuration problem${total === 1 ? '' : 's'}; ${OUTCOME[check]}:\n${lines}`;
}

function listLines(problems: readonly ConfigProblem[], total: number): string[] {
  const more = total - problems.length;
  return [...problems.map((problem) => problem.text), ...(more > 0 ? [`... and ${more} more`] : [])];
}

function rank({ problem }: { problem: Problem }): number {
  return problem.origin.kind === 'file' ? 0 : 1;
}

function compareLines(a: Position | undefined, b: Position | undefined): number {
  if (a === undefined || b === undefined) return 0;
  return a.line - b.line || a.col - b.col;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function formatProblem(problem: Problem, context: ProblemContext): string {
  const related = problem.related === undefined ? '' : ` (see ${formatLocation(problem.related, context)})`;
  return `${formatLocation(problem.origin, context)}: ${problem.message}${related}`;
}

function formatLocation(origin: Origin, context: ProblemContext): string {
  switch (origin.kind) {
    case 'file': {
      const position = positionOf(origin, context);
      const where = `${context.file ?? 'config'}${position === undefined ? '' : `:${position.line}:${position.col}`}`;
      return origin.path.length === 0 ? where : `${where} ${formatFieldPath(origin.path)}`;
    }
    // As typed, but with any URL's userinfo and query hidden, as in the message after it.
    case 'flag':
      return `${origin.flag} ${redactUrlsIn(origin.value)}`;
    case 'app-args':
      return `-- ${redactUrlsIn(origin.args.join(' '))}`;
    case 'command-line':
      return 'command line';
    default:
      return assertNever(origin);
  }
}

function positionOf(origin: Origin, context: ProblemContext): Position | undefined {
  if (origin.kind !== 'file') return undefined;
  return origin.position ?? context.locate?.(origin.path);
}

/** processes[1].readiness.period; env keys that are not identifiers as env["my.key"]. */
function formatFieldPath(path: readonly PathSegment[]): string {
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      if (!IDENTIFIER.test(segment)) return `[${JSON.stringify(segment)}]`;
      return index === 0 ? segment : `.${segment}`;
    })
    .join('');
}

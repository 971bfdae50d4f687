import { assertNever } from '../plan/assert-never.ts';
import { redactUrlsIn } from '../support/redact-url.ts';
import type { Result } from '../support/result.ts';

export interface Position {
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly col: number;
}

/** Where a field path is in the file. */
export type Locator = (path: readonly PathSegment[]) => Position;

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
  const located = problems.map((problem) => ({ problem, position: positionOf(problem.origin, context) }));
  // sort is stable: problems at the same place keep the order they were reported in.
  located.sort((a, b) => rank(a) - rank(b) || compareLines(a.position, b.position));
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

// A problem is a message plus where the offending value came from. Positions in
// the file are resolved only when the problems are reported (above), so the
// steps that find problems need no YAML document.

export type PathSegment = string | number;

export type Origin =
  /** A field of the config file; `position` when known better than the path (YAML syntax errors). */
  | {
      readonly kind: 'file';
      readonly path: readonly PathSegment[];
      readonly position?: { readonly line: number; readonly col: number } | undefined;
    }
  /** One command-line option and the value given to it. */
  | { readonly kind: 'flag'; readonly flag: string; readonly value: string }
  /** The app given as operands (after the options, or after `--`). */
  | { readonly kind: 'app-args'; readonly args: readonly string[] }
  /** The command line as a whole, when no file is involved. */
  | { readonly kind: 'command-line' };

export interface Problem {
  readonly origin: Origin;
  readonly message: string;
  /** Another place the message refers to, e.g. the first use of a duplicate name. */
  readonly related?: Origin | undefined;
}

/** Collects a problem; steps report and carry on, so every problem is found in one run. */
export type Report = (origin: Origin, message: string, related?: Origin) => void;

export function fileOrigin(...path: PathSegment[]): Origin {
  return { kind: 'file', path };
}

/** The origin of a field inside `origin`: deeper in the file, or the same flag. */
export function at(origin: Origin, ...path: PathSegment[]): Origin {
  return origin.kind === 'file' ? { kind: 'file', path: [...origin.path, ...path] } : origin;
}

export function createProblemList(): { readonly problems: Problem[]; readonly report: Report } {
  const problems: Problem[] = [];
  const report: Report = (origin, message, related) => {
    problems.push({ origin, message, related });
  };
  return { problems, report };
}

/** The parsed value, or undefined after reporting why it could not be parsed. */
export function valueOrReport<T>(result: Result<T>, origin: Origin, report: Report): T | undefined {
  if (result.ok) return result.value;
  report(origin, result.message);
  return undefined;
}

import { assertNever } from '../util/assert-never.ts';
import type { Locator, Position } from './locate.ts';
import type { Origin, PathSegment, Problem } from './problem.ts';

/** The config file, when there is one, to turn field paths into positions. */
export interface ProblemContext {
  readonly file: string | undefined;
  readonly locate: Locator | undefined;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `FILE:LINE:COL FIELD: message` or `--flag VALUE: message`, plus where a related value is. */
export function formatProblem(problem: Problem, context: ProblemContext): string {
  const related = problem.related === undefined ? '' : ` (see ${formatLocation(problem.related, context)})`;
  return `${formatLocation(problem.origin, context)}: ${problem.message}${related}`;
}

export function formatLocation(origin: Origin, context: ProblemContext): string {
  switch (origin.kind) {
    case 'file': {
      const position = positionOf(origin, context);
      const where = `${context.file ?? 'config'}${position === undefined ? '' : `:${position.line}:${position.col}`}`;
      return origin.path.length === 0 ? where : `${where} ${formatFieldPath(origin.path)}`;
    }
    case 'flag':
      return `${origin.flag} ${origin.value}`;
    case 'app-args':
      return `-- ${origin.args.join(' ')}`;
    case 'command-line':
      return 'command line';
    default:
      return assertNever(origin);
  }
}

export function positionOf(origin: Origin, context: ProblemContext): Position | undefined {
  if (origin.kind !== 'file') return undefined;
  return origin.position ?? context.locate?.(origin.path);
}

/** processes[1].readiness.period; env keys that are not identifiers as env["my.key"]. */
export function formatFieldPath(path: readonly PathSegment[]): string {
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      if (!IDENTIFIER.test(segment)) return `[${JSON.stringify(segment)}]`;
      return index === 0 ? segment : `.${segment}`;
    })
    .join('');
}

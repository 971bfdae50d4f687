import type { Result } from './result.ts';

// A problem is a message plus where the offending value came from. Positions in
// the file are resolved only when the problems are reported (config-error.ts),
// so the steps that find problems need no YAML document.

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

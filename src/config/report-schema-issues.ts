import type * as z from 'zod';
import { fileOrigin, type PathSegment, type Report } from './problem.ts';
import { unknownKeyMessage } from './unknown-key.ts';

/** Zod's issues as problems at their field paths; messages come from describe-issue.ts. */
export function reportSchemaIssues(issues: readonly z.core.$ZodIssue[], report: Report): void {
  for (const issue of issues) reportIssue(issue, [], report);
}

function reportIssue(issue: z.core.$ZodIssue, prefix: readonly PathSegment[], report: Report): void {
  const path = [...prefix, ...issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)))];
  switch (issue.code) {
    case 'unrecognized_keys':
      for (const key of issue.keys) report(fileOrigin(...path, key), unknownKeyMessage(key, path));
      return;
    case 'invalid_union': {
      // When only one branch accepted the value's type (a list with a bad item,
      // a probe mapping with a bad field), its issues say more than "expected a
      // string or a mapping".
      const typed = issue.errors.filter((branch) => !branch.some((inner) => inner.code === 'invalid_type' && inner.path.length === 0));
      if (typed.length === 1) for (const inner of typed[0]!) reportIssue(inner, path, report);
      else report(fileOrigin(...path), issue.message);
      return;
    }
    default:
      report(fileOrigin(...path), issue.message);
  }
}

import { CMDLINE_PATTERN, compileLinearPattern } from '../../src/plan/linear-pattern.ts';
import { DEFAULTS } from '../../src/plan/plan.ts';
import type { ProcessMatch } from '../../src/plan/process-match.ts';

/** A process match as config builds it: cmdline compiled for the linear-time engine, maxMatches 1 unless given. */
export function processMatch(fields: { comm?: string; cmdline?: string; uid?: number; maxMatches?: number }): ProcessMatch {
  const { cmdline, maxMatches = DEFAULTS.external.maxMatches, ...rest } = fields;
  if (cmdline === undefined) return { ...rest, maxMatches };
  const compiled = compileLinearPattern(cmdline, CMDLINE_PATTERN);
  if (!compiled.ok) throw new Error(compiled.message);
  return { ...rest, cmdline: compiled.pattern, maxMatches };
}
